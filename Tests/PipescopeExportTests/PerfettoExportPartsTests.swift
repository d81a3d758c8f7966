import Foundation
@testable import PipescopeExport
import PipescopeModel
import XCTest

/// The parts that make the Perfetto export fast, each against a plain model of what it
/// stands for: a dictionary, a list, the source read in place.
final class PerfettoExportPartsTests: XCTestCase {
    /// The event-id table holds what a dictionary would, through growth and emptying.
    func testEventPositionsAgreeWithADictionary() {
        var table = EventPositions()
        var model: [UInt64: Int] = [:]
        var rng = SystemRandomNumberGenerator()
        for round in 0..<4 {
            for i in 0..<5_000 {
                let id = UInt64.random(in: 1...20_000, using: &rng)
                table[id] = i
                model[id] = i
            }
            XCTAssertEqual(table.count, model.count, "round \(round)")
            for id in UInt64(0)...20_001 { XCTAssertEqual(table[id], model[id]) }
            table.removeAll()
            model.removeAll()
            XCTAssertNil(table[UInt64.random(in: 1...20_000, using: &rng)])
            XCTAssertEqual(table.count, 0)
        }
        table[0] = 5   // 0 means "no event": never stored
        XCTAssertNil(table[0])
    }

    /// A text is interned the second time it comes, known after; a long one never; and a
    /// text whose slot another took starts over.
    func testRecentValuesInternTheSecondSighting() {
        var recent = RecentValues()
        guard case .first = recent.visit("()") else { return XCTFail("first sighting") }
        guard case .second(let slot) = recent.visit("()") else { return XCTFail("second sighting") }
        recent.intern(slot, 12)
        guard case .known(12) = recent.visit("()") else { return XCTFail("known after") }
        guard case .tooLong = recent.visit(String(repeating: "x", count: PerfettoInterner.longestInterned + 1)) else {
            return XCTFail("a long text is never interned")
        }
        // More texts than slots: each is first, or second, or known, never wrong.
        var iids: [String: UInt64] = [:]
        var next: UInt64 = 100
        for i in 0..<(3 * RecentValues.slots) {
            let text = "v\(i % (RecentValues.slots + 7))"
            switch recent.visit(text) {
            case .first: break
            case .second(let slot): recent.intern(slot, next); iids[text] = next; next += 1
            case .known(let iid): XCTAssertEqual(iids[text], iid, text)
            case .tooLong: XCTFail(text)
            }
        }
        recent.removeAll()
        guard case .first = recent.visit("()") else { return XCTFail("emptied") }
    }

    /// Held events keep their bytes and their flows through prefixes and removal.
    func testHeldPacketsKeepBytesAndFlowsInOrder() {
        var held = HeldPackets()
        for i in 0..<10 {
            let entry = held.append(time: Int64(i), cleared: i == 0, interned: i % 3 == 0 ? [0xAA, UInt8(i)] : [],
                                    body: [UInt8](repeating: UInt8(i), count: i + 1))
            XCTAssertEqual(entry.index, i)
        }
        held.addFlow(7, to: 2)
        held.addFlow(8, to: 2)
        held.addFlow(9, to: 6)
        func describe(_ buffer: HeldPackets, _ index: Int) -> String {
            let entry = buffer.entry(index)
            var flows: [UInt64] = []
            buffer.forEachFlow(of: entry) { flows.append($0) }
            return buffer.withBytes(of: entry) { interned, body in
                "\(entry.time) \(Array(interned)) \(Array(body)) \(flows) \(entry.cleared)"
            }
        }
        let before = (0..<10).map { describe(held, $0) }
        let first = held.prefix(upTo: 4)
        XCTAssertEqual(first.startIndex, 0)
        XCTAssertEqual(first.endIndex, 4)
        XCTAssertEqual((0..<4).map { describe(first, $0) }, Array(before[0..<4]))
        held.removeFirst(upTo: 4)
        XCTAssertEqual(held.startIndex, 4)
        XCTAssertEqual((4..<10).map { describe(held, $0) }, Array(before[4..<10]))
        XCTAssertTrue(describe(held, 6).hasSuffix("[9] false"))
        XCTAssertTrue(before[2].hasSuffix("[7, 8] false"))
        held.removeAll()
        XCTAssertEqual(held.startIndex, 10)
        XCTAssertEqual(held.append(time: 0, cleared: false, interned: [], body: [1]).index, 10)
    }

    /// Reading ahead gives the same messages and counts, the source's error where it came,
    /// and stops cleanly when the export stops early.
    func testReadAheadGivesWhatTheSourceGives() throws {
        struct Source: MessageSource {
            var left: Int
            var failAtEnd: Bool
            var messagesRead = 0
            var bytesRead = 0
            var truncatedBytes = 0
            var endReason: String?
            mutating func next() throws -> Message? {
                guard left > 0 else {
                    if failAtEnd { throw CocoaError(.fileReadCorruptFile) }
                    truncatedBytes = 3
                    endReason = "closed"
                    return nil
                }
                left -= 1
                messagesRead += 1
                bytesRead += 10
                return .disconnected("m\(messagesRead)")
            }
        }
        let ahead = ReadAhead(Source(left: 100, failAtEnd: false))
        var seen = 0
        while let message = try ahead.next() {
            seen += 1
            guard case .disconnected(let text) = message else { return XCTFail("\(message)") }
            XCTAssertEqual(text, "m\(seen)")
            XCTAssertEqual(ahead.messagesRead, seen)
            XCTAssertEqual(ahead.bytesRead, seen * 10)
        }
        XCTAssertEqual(seen, 100)
        XCTAssertEqual(ahead.truncatedBytes, 3)
        XCTAssertEqual(ahead.endReason, "closed")
        XCTAssertNil(try ahead.next())
        XCTAssertEqual(ahead.stop().messagesRead, 100)

        let failing = ReadAhead(Source(left: 5, failAtEnd: true))
        for _ in 0..<5 { XCTAssertNotNil(try failing.next()) }
        XCTAssertThrowsError(try failing.next())
        XCTAssertEqual(failing.messagesRead, 5)
        _ = failing.stop()

        let abandoned = ReadAhead(Source(left: 1_000_000, failAtEnd: false))
        XCTAssertNotNil(try abandoned.next())
        XCTAssertLessThan(abandoned.stop().messagesRead, 1_000_000)   // it stopped reading
    }
}
