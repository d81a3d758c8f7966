import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A snapshot past the frame limit travels in parts, each a frame within the limit, and
/// the reader joins them into exactly the snapshot the writer had: on a socket, in a
/// recording, cut off, or interleaved by a hostile peer.
final class SnapshotPartsTests: XCTestCase {
    /// A graph past the frame limit: 2,000 three-stage pipelines whose values and types
    /// have long names, about 5 MB as one message (10,000 pipelines with short names
    /// make about 7 MB). Few stages with long texts keep a debug build quick.
    private static let big: GraphSnapshot = {
        var nodes: [NodeSummary] = []
        nodes.reserveCapacity(6_000)
        let generic = "Publishers.Debounce<Publishers.RemoveDuplicates<Publishers.Map<Publishers.CombineLatest<"
            + "AnyPublisher<Array<SearchResult>, Never>, CurrentValueSubject<SearchFilter, Never>>, "
            + "SearchViewModel.Section>>, DispatchQueue>"
        for pipeline in 0..<2_000 {
            let base = UInt64(pipeline * 3)
            let location = SourceLocation(file: "/src/App/Features/Search/SearchViewModel\(pipeline % 50).swift",
                                          line: 40 + pipeline % 300, function: "SearchViewModel.bind(to:)",
                                          image: "App", offset: 0x1000 + UInt64(pipeline))
            for (i, op) in ["PassthroughSubject", "Map", "Filter"].enumerated() {
                var node = NodeSummary(info: NodeInfo(
                    id: base + UInt64(i) + 1, parent: i == 0 ? nil : base + UInt64(i),
                    operatorName: op,
                    publisherType: "Publishers.\(op)<\(generic), Query\(pipeline % 7)>",
                    subscriber: i == 2 ? "Sink<Result, Never>" : "Publishers.\(op).Inner<\(generic)>",
                    thread: "main", createdNanos: 1_700_000_000_000_000_000 + Int64(pipeline) * 1_000,
                    location: i == 0 ? location : nil, frames: i == 0 ? [location, location] : []))
                node.values = pipeline % 13
                node.lastValue = "SearchResult(id: \(pipeline), title: \"" + String(repeating: "result ", count: 20) + "\")"
                nodes.append(node)
            }
        }
        let owners = Dictionary(uniqueKeysWithValues: (0..<500).map { (UInt64($0 + 1), Owner(id: UInt64($0 + 1), name: "ViewModel \($0)")) })
        var recent = BatchFixtures.realisticBatch().events.filter { $0.kind == .value }
        for i in recent.indices { recent[i].id = UInt64(i + 1) }
        return GraphSnapshot(nodes: nodes, owners: owners, dropped: 3, sequence: 99_000, skippedEvents: 7,
                             recent: recent)
    }()

    /// A writer with names in its table (a late attach's snapshot carries them all).
    private static func writer() -> WireStreamWriter {
        var writer = WireStreamWriter()
        _ = writer.message(BatchFixtures.realisticBatch())
        return writer
    }

    /// ``big`` as the writer sends it, and the writer's table (made once: a debug build
    /// takes seconds to encode 30,000 stages).
    private static let sent: (frames: [[UInt8]], strings: [String]) = {
        var stream = writer()
        return (stream.frames(big), stream.table.strings)
    }()

    private static func decode(_ frame: [UInt8]) throws -> ServerMessage {
        try ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize))
    }

    func testABigSnapshotTravelsInFramesWithinTheLimitAndJoinsIntoTheSameSnapshot() throws {
        let frames = Self.sent.frames
        XCTAssertGreaterThan(frames.count, 2, "about 5 MB in parts of at most 2 MiB")
        for (i, frame) in frames.enumerated() {
            if i < frames.count - 1 {
                XCTAssertLessThanOrEqual(frame.count - Framing.headerSize, SnapshotParts.partBytes, "part \(i) within its budget")
            }
            XCTAssertLessThanOrEqual(frame.count - Framing.headerSize, Framing.maxFrameSize)
            XCTAssertEqual(try Self.decode(frame).snapshot.continues, i < frames.count - 1, "only the last part ends it")
        }

        // Through frames and the reader, as the inspector reads a socket.
        var decoder = FrameDecoder()
        decoder.append(frames.flatMap { $0 })
        var joiner = SnapshotJoiner()
        var reader = WireStreamReader()
        var joined: [GraphSnapshot] = []
        while let payload = try decoder.next() {
            XCTAssertFalse(joined.count > 0, "nothing after the last part")
            if let message = try joiner.join(ServerMessage.decode(payload: payload)) {
                joined.append(try reader.snapshot(message.snapshot))
            }
        }
        XCTAssertEqual(joined, [Self.big], "every stage, owner, recent event and count, in order")
        XCTAssertEqual(reader.table.strings, Self.sent.strings, "the whole string table")
        XCTAssertFalse(joiner.isJoining)
    }

    func testASnapshotThatFitsIsOneMessageAsBefore() {
        var writer = Self.writer()
        let small = GraphSnapshot(nodes: Array(Self.big.nodes.prefix(30)), sequence: 4)
        let messages = writer.messages(small)
        XCTAssertEqual(messages.count, 1)
        XCTAssertFalse(messages[0].snapshot.continues)
    }

    /// Splitting keeps every list in order whatever the budget, down to a part for
    /// about every stage, and joins into what one message would carry.
    func testAnyBudgetSplitsIntoPartsThatJoinBack() throws {
        var stream = Self.writer()
        var whole = stream.message(GraphSnapshot(nodes: Array(Self.big.nodes.prefix(200)),
                                                 owners: [1: Owner(id: 1, name: "A"), 2: Owner(id: 2, name: "B")],
                                                 sequence: 9, recent: Self.big.recent)).snapshot
        whole.strings += (0..<50).map { "name \($0)" }
        for budget in [300, 1_000, 10_000, 100_000, 1 << 20] {
            let frames = SnapshotParts.frames(whole, partBytes: budget)
            var joiner = SnapshotJoiner()
            var out: [ServerMessage] = []
            for frame in frames {
                if let joined = try joiner.join(Self.decode(frame)) { out.append(joined) }
            }
            XCTAssertEqual(out.map(\.snapshot), [whole], "budget \(budget): \(frames.count) parts")
            if budget == 300 { XCTAssertGreaterThan(frames.count, whole.nodes.count / 2, "a part for about every stage") }
            if budget == 1 << 20 { XCTAssertEqual(frames.count, 1) }
        }
    }

    func testAnotherMessageBetweenPartsIsMalformed() throws {
        var joiner = SnapshotJoiner()
        var part = ServerMessage()
        part.snapshot.continues = true
        XCTAssertNil(try joiner.join(part))
        var batch = ServerMessage()
        batch.packed = WirePackedBatch()
        XCTAssertThrowsError(try joiner.join(batch)) { error in
            XCTAssertEqual(error as? FrameError,
                           .malformed("a PackedBatch came between the parts of a snapshot (after part 1)"))
        }
    }

    /// A peer that never ends its snapshot is stopped, not joined without bound.
    func testASnapshotThatNeverEndsIsStopped() throws {
        var joiner = SnapshotJoiner()
        var part = ServerMessage()
        part.snapshot.continues = true
        part.snapshot.strings = ["x"]
        for _ in 1..<SnapshotParts.maxParts { XCTAssertNil(try joiner.join(part)) }
        XCTAssertThrowsError(try joiner.join(part)) { error in
            XCTAssertEqual(error as? FrameError, .malformed(
                "a snapshot in more than \(SnapshotParts.maxParts) parts, more than any graph this side can hold"))
        }
    }

    // MARK: - In a recording

    private func recording() -> (bytes: [UInt8], partFrames: [Int]) {
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        var writer = WireStreamWriter()
        let parts = Self.sent.frames
        let batch = writer.message(BatchFixtures.deepChain(depth: 5)).framed()
        return (RecordingFormat.magic + welcome.framed() + parts.flatMap { $0 } + batch, parts.map(\.count))
    }

    func testARecordingReadsABigSnapshotAsOneMessage() throws {
        let (bytes, partFrames) = recording()
        var reader = try RecordingReader(bytes: bytes, chunkSize: 1 << 16)
        var messages: [ServerMessage] = []
        while let message = try reader.next() { messages.append(message) }
        XCTAssertEqual(messages.map(\.kindForTest), ["welcome", "snapshot", "packed"])
        XCTAssertEqual(messages[1].snapshot.nodes.count, 6_000)
        XCTAssertGreaterThan(partFrames.count, 1)
        XCTAssertEqual(reader.messagesRead, 3)
        XCTAssertEqual(reader.bytesRead, bytes.count)
        XCTAssertEqual(reader.truncatedBytes, 0)
    }

    /// Cut after some of the parts (the program killed while writing): the messages
    /// before stand, the parts count as the cut-off tail.
    func testARecordingCutBetweenPartsEndsBeforeTheSnapshot() throws {
        let (bytes, partFrames) = recording()
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        let beforeParts = RecordingFormat.magic.count + welcome.framed().count
        let cut = Array(bytes.prefix(beforeParts + partFrames[0] + 10))
        var reader = try RecordingReader(bytes: cut)
        var messages: [ServerMessage] = []
        while let message = try reader.next() { messages.append(message) }
        XCTAssertEqual(messages.map(\.kindForTest), ["welcome"])
        XCTAssertEqual(reader.bytesRead, beforeParts)
        XCTAssertEqual(reader.truncatedBytes, partFrames[0] + 10, "the first part and the start of the second")
    }

    func testAnEndMarkBetweenPartsIsDamage() throws {
        let parts = Self.sent.frames
        let bytes = RecordingFormat.magic + parts[0] + RecordingFormat.endMark(reason: "x") + parts[1]
        var reader = try RecordingReader(bytes: bytes)
        XCTAssertThrowsError(try reader.next()) { error in
            XCTAssertEqual("\(error)".contains("the end mark came between the parts of a snapshot"), true, "\(error)")
        }
    }
}

private extension ServerMessage {
    var kindForTest: String {
        switch body {
        case .welcome?: return "welcome"
        case .snapshot?: return "snapshot"
        case .packed?: return "packed"
        default: return "other"
        }
    }
}
