import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Value texts in the history: up to 8 bytes inside the 40-byte entry, longer ones in the
/// out-of-line store beside the entries, which eviction (without a spill) trims with them.
/// Every kept event, the oldest one included, keeps its own text.
final class HistoryTextTests: XCTestCase {
    /// 40 stages, then 12 batches of 700 values whose texts are 15 to 22 bytes.
    private func batches() -> [EventBatch] {
        var first = BatchBuilder()
        first.chain(from: 1, subscriber: "Sink", ops: (0..<40).map { "Op\($0)" })
        var all = [first.build(sequence: UInt64(first.batch.events.count))]
        var sequence = UInt64(all[0].events.count)
        for round in 0..<12 {
            var b = BatchBuilder(start: BatchBuilder.baseNanos + Int64(round + 1) * 1_000_000_000)
            for i in 0..<700 { b.value(NodeID((i + round) % 40 + 1), "round \(round) value \(i)") }
            sequence += UInt64(b.batch.events.count)
            all.append(b.build(sequence: sequence))
        }
        return all
    }

    /// Texts of exactly 8 bytes, the most an entry holds, cost nothing beside it: 100,000
    /// values of 8-character texts (ids, short names) take 40 bytes an event, and read back.
    func testEightByteTextsLiveInsideTheEntry() {
        var history = History()
        history.limit = 1_000_000
        var live = Graph()
        var first = BatchBuilder()
        first.chain(from: 1, subscriber: "Sink", ops: (0..<100).map { "Op\($0)" })
        history.append(first.build(), folding: &live)
        for batch in 0..<100 {
            var b = BatchBuilder()
            for i in 0..<1_000 { b.value(NodeID(i % 100 + 1), "id-\(10_000 + batch * 10 + i % 10)") }
            history.append(b.build(), folding: &live)
        }
        XCTAssertEqual(history.event(at: history.end)?.text, "id-10999")
        XCTAssertEqual(history.event(at: history.end)?.text.utf8.count, 8)
        XCTAssertLessThanOrEqual(history.bytesPerEvent, 40, "\(history.bytesPerEvent) bytes per event")
    }

    /// After every batch (so after each of the evictions), each kept position's event has
    /// exactly the text it was sent with: the first kept one, whose text sits at the edge
    /// of what eviction trims, and the newest.
    func testEveryKeptEventKeepsItsLongTextAcrossEvictions() {
        var history = History()
        history.limit = 1_000
        var live = Graph()
        let all = batches()
        let texts = all.flatMap(\.events).map(\.text)
        XCTAssertTrue(texts.suffix(700).allSatisfy { $0.utf8.count > 8 }, "the texts are stored out of line")
        var evictions = 0
        for batch in all {
            let start = history.start
            history.append(batch, folding: &live)
            if history.start > start { evictions += 1 }
            guard history.end > history.start else { continue }
            let oldest = history.start + 1
            XCTAssertEqual(history.event(at: oldest)?.text, texts[oldest - 1], "the oldest kept event, at \(oldest)")
            XCTAssertEqual(history.event(at: history.end)?.text, texts[history.end - 1], "the newest, at \(history.end)")
        }
        XCTAssertGreaterThanOrEqual(evictions, 6, "evicted again and again")
        XCTAssertGreaterThan(history.start, 5_000)
        var wrong: [String] = []
        // A stride, not a range: an empty history gives no positions instead of a trap.
        for position in stride(from: history.start + 1, through: history.end, by: 1) where history.event(at: position)?.text != texts[position - 1] {
            wrong.append("\(position): \(history.event(at: position)?.text ?? "nil") for \(texts[position - 1])")
        }
        XCTAssertEqual(wrong, [], "\(wrong.count) of \(history.end - history.start) kept events lost their text")
    }
}
