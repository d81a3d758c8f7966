import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Version 4's value columns: scalar values travel as numbers and come back as numbers
/// (their words made only when shown), the columns of runs expand exactly, an `Int`
/// value costs at most 5 bytes an event, and hostile columns are refused in words.
final class ScalarColumnTests: XCTestCase {
    private func travel(_ batch: EventBatch) throws -> (back: EventBatch, packed: WirePackedBatch, bytes: Int) {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let wire = writer.message(batch)
        let frame = wire.framed()
        let decoded = try ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize))
        return (try reader.batch(decoded.packed), wire.packed, frame.count)
    }

    /// Every kind of scalar, and words, and no value, mixed with events of other kinds.
    static func mixedBatch() -> EventBatch {
        var b = BatchBuilder(step: 1_000)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        let values: [EventValue] = [
            .int(42), .int(43), .int(-7), .int(.min), .int(.max), .uint(.max), .uint(0),
            .double(0.1), .double(-0.0), .double(.infinity), .double(1e300), .float(1.5), .float(.nan),
            .bool(true), .bool(false), .bool(true), .void, .text("Date 2024"), .none, .int(44),
        ]
        for (i, value) in values.enumerated() {
            b.add(.value, 2) { $0.value = value; $0.thread = i < 10 ? "main" : "worker" }
            if i % 4 == 0 { b.demand(2, .count(1)) }
            b.add(.value, 1) { $0.value = value; $0.causedBy = 0 }
        }
        b.fail(2, "Failure(42)")
        return b.build()
    }

    func testEveryScalarComesBackAsTheSameNumberAndShowsTheSameWords() throws {
        let batch = Self.mixedBatch()
        let (back, packed, _) = try travel(batch)
        XCTAssertEqual(back, batch)
        XCTAssertEqual(back.events.map(\.text), batch.events.map(\.text))
        for (sent, got) in zip(batch.events, back.events) where sent.value.isScalar {
            XCTAssertTrue(got.value.isScalar, "\(sent.value) came back as \(got.value)")
            XCTAssertEqual("\(got.value)", "\(sent.value)", "the same case and payload")
        }
        XCTAssertEqual(packed.texts.filter { $0 == "Date 2024" }.count, 2, "words still travel as words")
        XCTAssertFalse(packed.texts.contains("42"), "a scalar travels as a number, not its words")
        // The words are Swift's own descriptions of the values.
        let texts = back.events.filter { $0.kind == .value && $0.node == 2 }.map(\.text)
        XCTAssertEqual(texts, ["42", "43", "-7", "\(Int64.min)", "\(Int64.max)", "\(UInt64.max)", "0",
                               "0.1", "-0.0", "inf", "1e+300", "1.5", "nan", "true", "false", "true", "()",
                               "Date 2024", "", "44"])
    }

    func testIntValuesCostAtMostFiveBytesAnEvent() throws {
        // The wire benchmark's batch: 10,000 values over 100 stages, a microsecond apart,
        // as a probe sends Int values; names sent in an earlier batch.
        var batch = EventBatch()
        for id in 1...UInt64(100) {
            batch.append(NodeInfo(id: id, parent: id % 10 == 1 ? nil : id - 1, operatorName: "Map",
                                  publisherType: "Map<PassthroughSubject<Int, Never>, Int>", subscriber: "Sink",
                                  thread: "", createdNanos: 0))
        }
        for i in 0..<10_000 {
            batch.events.append(StageEvent(.value, node: UInt64(i % 100) + 1,
                                           time: 1_700_000_000_000_000_000 + Int64(i) * 1000, value: .int(Int64(i))))
        }
        batch.trailer.sequence = 10_000
        var writer = WireStreamWriter(), reader = WireStreamReader()
        _ = try reader.batch(ServerMessage.decode(payload: writer.message(batch).framed()
            .dropFirst(Framing.headerSize)).packed)
        let frame = writer.message(batch).framed()
        let back = try reader.batch(ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize)).packed)
        XCTAssertEqual(back.events.count, 10_100, "each stage's subscribe, then the values")
        XCTAssertEqual(back.events.last?.text, "9999")
        print("ScalarColumnTests: \(frame.count) bytes for 10,000 Int values (\(Double(frame.count) / 10_000) an event)")
        XCTAssertLessThanOrEqual(Double(frame.count) / 10_000, 5, "\(frame.count) bytes for 10,000 events")
    }

    func testRunsAreSentOnlyWhenShorterAndExpandExactly() throws {
        let batch = Self.mixedBatch()
        let (back, packed, _) = try travel(batch)
        XCTAssertEqual(back, batch)
        XCTAssertTrue(packed.kindRuns.isEmpty != packed.kinds.isEmpty, "one of the two, never both")
        XCTAssertTrue(packed.threadRuns.isEmpty != packed.eventThreads.isEmpty)
        // A busy stage on one thread: its kinds and threads are runs, its causes too.
        var b = BatchBuilder(step: 1_000)
        for i in 0..<1_000 { b.add(.value, 3) { $0.value = .int(Int64(i)); $0.thread = "main" } }
        let busy = b.build()
        let (same, busyPacked, _) = try travel(busy)
        XCTAssertEqual(same, busy)
        XCTAssertEqual(busyPacked.kindRuns, [UInt32(EventKind.value.rawValue), 1_000])
        XCTAssertEqual(busyPacked.valueRuns, [1, 1_000])
        XCTAssertEqual(busyPacked.threadRuns.count, 2)
        XCTAssertEqual(busyPacked.kinds, [])
    }

    func testTimingsOfAFewValuesAreSparse() throws {
        var b = BatchBuilder(step: 1_000)
        for i in 0..<100 {
            b.add(.value, 3) {
                $0.value = .int(Int64(i))
                if i % 10 == 3 { $0.selfNanos = 1_000 + Int64(i); $0.totalNanos = 5_000 + Int64(i) }
            }
        }
        let batch = b.build()
        let (back, packed, _) = try travel(batch)
        XCTAssertEqual(back, batch)
        XCTAssertEqual(packed.timedValues, [3] + Array(repeating: 9, count: 9))
        XCTAssertEqual(packed.selfNs.count, 10)
        XCTAssertEqual(back.events[13].totalNanos, 5_013)
        XCTAssertEqual(back.events[14].totalNanos, 0)
    }

    // MARK: - Hostile input

    private func refuse(_ edit: (inout WirePackedBatch) -> Void, _ expected: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        var writerTable = StringTable(), table = StringTable()
        var p = BatchPacking.pack(Self.mixedBatch(), table: &writerTable)
        edit(&p)
        XCTAssertThrowsError(try BatchPacking.unpack(p, table: &table), file: file, line: line) { error in
            guard case .malformed(let why)? = error as? FrameError else {
                return XCTFail("not FrameError.malformed: \(error)", file: file, line: line)
            }
            XCTAssertTrue(why.contains(expected), why, file: file, line: line)
        }
    }

    func testScalarColumnsThatDisagreeAreRefused() {
        refuse({ $0.intDeltaNumbers.removeLast() }, "fewer integer values than its value runs say")
        refuse({ $0.intDeltaNumbers.append(1) }, "more scalar values than its value runs say")
        refuse({ $0.doubles.removeAll() }, "fewer double values")
        refuse({ $0.bools = $0.bools.prefix(0) }, "fewer Bool values")
        refuse({ $0.bools.append(0) }, "more scalar values")
        refuse({ $0.valueRuns[$0.valueRuns.count - 1] -= 1 }, "value runs cover fewer values than its VALUE events")
        refuse({ $0.valueRuns[$0.valueRuns.count - 1] += 1 }, "value runs cover more values than its VALUE events")
        refuse({ $0.valueRuns.removeLast() }, "value runs are not pairs")
        refuse({ $0.valueRuns[1] = 0 }, "value run of length 0")
        refuse({ $0.valueRuns[0] = 9 }, "value kind 9, which protocol version \(ProtocolVersion.current) does not know")
        refuse({ $0.valueRuns = [] }, "scalar values but no value runs")
        refuse({ $0.textEvents.append(UInt32(6)); $0.texts.append("and words") }, "both a scalar and a text for event 6")
    }

    func testRunsThatDoNotAddUpAreRefused() {
        refuse({ $0.kindRuns = [4, 1_000_000] }, "kind runs add up to more than")
        refuse({ $0.kindRuns = [4, 0] }, "kind run of length 0")
        refuse({ $0.kindRuns = [4] }, "kind runs are not pairs")
        refuse({ $0.kindRuns = [4, 3]; $0.kinds = [4, 4, 4] }, "both a kind column and its runs")
        refuse({ $0.kindRuns = [4, 3]; $0.kinds = [] }, "event columns have different lengths")
        refuse({ $0.threadRuns = [1, UInt32.max]; $0.eventThreads = [] }, "thread runs add up to more than")
        refuse({ $0.causeRuns = [0, 1]; $0.causeDeltas = [] }, "cause or timing columns have different lengths")
        refuse({ $0.timedValues = [500]; $0.selfNs = [1]; $0.totalNs = [2] }, "more column entries than events")
        refuse({ $0.timedValues = [0, 0]; $0.selfNs = [1]; $0.totalNs = [2] }, "different lengths")
    }
}
