import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// The history cursor: the graph at any position equals folding exactly that many
/// events, across checkpoints and after eviction.
final class HistoryTests: XCTestCase {
    /// 3 batches: 40 stages subscribing, then 1,500 values spread over them.
    private func batches() -> [EventBatch] {
        var first = BatchBuilder()
        first.chain(from: 1, subscriber: "Sink", ops: (0..<40).map { "Op\($0)" })
        var second = BatchBuilder()
        for i in 0..<700 { second.value(NodeID(i % 40 + 1), "v\(i)") }
        var third = BatchBuilder()
        for i in 700..<1500 { third.value(NodeID(i % 40 + 1), "v\(i)") }
        third.cancel(40, cause: .downstream)
        return [first.build(), second.build(), third.build()]
    }

    /// The reference: whole batches, then the first `k` events of the next (no value texts).
    private func reference(at position: Int, _ batches: [EventBatch]) -> Graph {
        var graph = Graph()
        var left = position
        for batch in batches {
            if left >= batch.events.count {
                graph.fold(batch)
                left -= batch.events.count
            } else {
                var part = batch
                part.events = Array(batch.events.prefix(left))
                part.trailer.lastValues = [:]
                graph.fold(part)
                break
            }
        }
        return graph
    }

    func testEveryPositionMatchesAFoldOfThatManyEvents() {
        var history = History()
        var live = Graph()
        let all = batches()
        for batch in all {
            history.append(batch, folding: &live)
        }
        XCTAssertEqual(history.end, all.reduce(0) { $0 + $1.events.count })
        for position in stride(from: 0, through: history.end, by: 37) + [history.end] {
            let shown = history.graph(at: position)
            let expected = reference(at: position, all)
            XCTAssertEqual(shown.roots, expected.roots, "at \(position)")
            for (id, node) in expected.nodes {
                XCTAssertEqual(shown[id]?.values, node.values, "values of #\(id) at \(position)")
                XCTAssertEqual(shown[id]?.status, node.status, "status of #\(id) at \(position)")
            }
        }
    }

    func testALocationFoundLaterIsTheStagesAtEveryPosition() {
        var history = History()
        var live = Graph()
        // A checkpoint every 32 events a stage: 1,280 here, so 2,000 more values make two.
        var more = BatchBuilder()
        for i in 0..<2_000 { more.value(NodeID(i % 40 + 1), "w\(i)") }
        let all = batches() + [more.build(sequence: 1_540 + 2_000)]
        for batch in all { history.append(batch, folding: &live) }
        XCTAssertGreaterThan(history.checkpointPositions.count, 1)
        // Stage 1's location comes after 3,540 events: looking back, it was made there all along.
        let here = BatchBuilder.at("Feed.swift", 88)
        history.append(EventBatch(locations: [LocatedStage(node: 1, location: here)],
                                  trailer: BatchTrailer(sequence: live.sequence)), folding: &live)
        XCTAssertEqual(live[1]?.location, here)
        for position in stride(from: 40, through: history.end, by: 97) + [history.end] {
            XCTAssertEqual(history.graph(at: position)[1]?.location, here, "at \(position)")
        }
        XCTAssertNil(history.graph(at: 0)[1], "before its subscribe there is no stage to locate")
    }

    func testEvictionKeepsJumpsExact() {
        var history = History()
        history.limit = 600
        var live = Graph()
        let all = batches()
        for batch in all {
            history.append(batch, folding: &live)
        }
        XCTAssertGreaterThan(history.start, 0, "old events were evicted")
        XCTAssertLessThanOrEqual(history.end - history.start, 600 + History.checkpointStride)
        let position = history.start + 10
        let shown = history.graph(at: position)
        XCTAssertEqual(shown[1]?.values, reference(at: position, all)[1]?.values)
        XCTAssertEqual(history.graph(at: 0).nodes.count, shown.nodes.count, "positions before the start clamp to it")
        XCTAssertEqual(history.nodeInfoCount, 0, "the evicted subscribes took their stage descriptions with them")
    }

    /// Eviction is exact, not a checkpoint span at a time: after many evictions the
    /// history keeps between `limit` and a sixteenth more events, and every kept position,
    /// the first one included, is the fold of exactly that many events.
    func testEvictionIsExactAndEveryKeptPositionStaysRight() {
        var history = History()
        history.limit = 1_000
        var live = Graph()
        var all = [batches()[0]]
        var sequence = UInt64(all[0].events.count)
        for round in 0..<12 {
            var b = BatchBuilder()
            for i in 0..<700 { b.value(NodeID((i + round) % 40 + 1), "r\(round)v\(i)") }
            if round == 5 { b.cancel(7, cause: .downstream) }
            sequence += UInt64(b.batch.events.count)
            all.append(b.build(sequence: sequence))
        }
        for batch in all {
            history.append(batch, folding: &live)
            let kept = history.end - history.start
            XCTAssertLessThanOrEqual(kept, 1_000 + 1_000 / 16 + batch.events.count)
        }
        XCTAssertGreaterThan(history.start, 5_000, "evicted many times")
        XCTAssertGreaterThanOrEqual(history.end - history.start, 1_000)
        for position in stride(from: history.start, through: history.end, by: 53) + [history.start, history.end] {
            let shown = history.graph(at: position)
            let expected = reference(at: position, all)
            for (id, node) in expected.nodes {
                XCTAssertEqual(shown[id]?.values, node.values, "values of #\(id) at \(position)")
                XCTAssertEqual(shown[id]?.status, node.status, "status of #\(id) at \(position)")
            }
        }
    }

    /// Below 120x30 the screen shows the tree and the stage only: Tab moves the focus
    /// between them and says where the timeline and the event log are, never moving it to
    /// a pane it does not show (where the arrows would move through history unseen); a
    /// terminal made smaller gives the focus of a pane it hides back to the tree.
    func testTabGoesOnlyToThePanesOnScreen() {
        var state = AppState(targetName: "t")
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .attached(process: "t", pid: 1))
        for batch in batches() { _ = reduce(&state, .batch(batch)) }
        _ = reduce(&state, .resize(Geometry(width: 80, height: 24, treePage: 10)))
        XCTAssertEqual(state.panesShown, [.tree, .detail])
        for action: Action in [.focusNext, .focusPrevious] {
            _ = reduce(&state, .action(action))
            XCTAssertEqual(state.focus, .detail, "Tab and Shift-Tab reach the Stage pane")
            XCTAssertEqual(state.session.notice?.text,
                           "the timeline and the event log need 120x30: T shows them full screen")
            _ = reduce(&state, .action(action))
            XCTAssertEqual(state.focus, .tree)
        }
        _ = reduce(&state, .action(.moveUp))
        XCTAssertNil(state.cursor.position, "the arrows did not move through history")
        _ = reduce(&state, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))
        while state.focus != .events { _ = reduce(&state, .action(.focusNext)) }
        _ = reduce(&state, .resize(Geometry(width: 80, height: 24, treePage: 10)))
        XCTAssertEqual(state.focus, .tree, "the event log went off screen, and the focus with it")
    }

    func testTabMovesTheFocusAndArrowsInTheLogMoveThroughHistory() {
        var state = AppState(targetName: "t")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "t", pid: 1))
        for batch in batches() { _ = reduce(&state, .batch(batch)) }
        _ = reduce(&state, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))  // all four panes
        XCTAssertEqual(state.focus, .tree)
        for expected in [Pane.timeline, .detail, .events] {
            _ = reduce(&state, .action(.focusNext))
            XCTAssertEqual(state.focus, expected)
        }
        _ = reduce(&state, .action(.moveUp))
        XCTAssertEqual(state.cursor.position, state.cursor.log.end - 1, "up in the event log: one event back")
        _ = reduce(&state, .action(.moveDown))
        XCTAssertNil(state.cursor.position, "down again: live")
        _ = reduce(&state, .action(.focusNext))
        XCTAssertEqual(state.focus, .tree, "Tab wraps around")
        _ = reduce(&state, .action(.focusPrevious))
        XCTAssertEqual(state.focus, .events)
    }

    func testTheCursorMovesBackAndReturnsToLive() {
        var state = AppState(targetName: "t")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "t", pid: 1))
        for batch in batches() { _ = reduce(&state, .batch(batch)) }
        let liveValues = state.cursor.graph[1]?.values
        _ = reduce(&state, .action(.history(-100)))
        XCTAssertEqual(state.cursor.position, state.cursor.log.end - 100)
        XCTAssertLessThan(state.cursor.graph[1]?.values ?? 0, liveValues ?? 0, "the past shows fewer values")
        XCTAssertEqual(state.cursor.liveGraph[1]?.values, liveValues, "history never rewrites the live graph")
        // New events keep arriving while looking at the past; the view stays put.
        var more = BatchBuilder()
        more.value(1, "later")
        let before = state.cursor.graph
        _ = reduce(&state, .batch(more.build()))
        XCTAssertEqual(state.cursor.graph, before)
        _ = reduce(&state, .action(.historyStart))
        XCTAssertEqual(state.cursor.position, 0)
        XCTAssertEqual(state.cursor.graph.nodes.count, 0, "before the first event: nothing yet")
        _ = reduce(&state, .action(.historyLive))
        XCTAssertNil(state.cursor.position)
        XCTAssertEqual(state.cursor.graph[1]?.values, (liveValues ?? 0) + 1)
        _ = reduce(&state, .action(.history(5)))
        XCTAssertNil(state.cursor.position, "past the newest event is live")
    }

    /// The probe skipped this inspector (it fell behind) and sent a snapshot: the history
    /// before the gap stays, the live graph jumps to the snapshot, and the status says so.
    func testAResyncSnapshotKeepsHistoryAndSaysWhatWasSkipped() {
        var state = AppState(targetName: "t")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "t", pid: 1))
        let all = batches()
        _ = reduce(&state, .batch(all[0]))
        _ = reduce(&state, .batch(all[1]))
        let beforeGap = state.cursor.log.end
        let pastValues = state.cursor.graph[1]?.values

        // The third batch never arrives; a snapshot that includes it does.
        var probeGraph = Graph()
        for batch in all { probeGraph.fold(batch) }
        var snapshot = probeGraph.snapshot()
        snapshot.skippedEvents = UInt64(all[2].events.count)
        _ = reduce(&state, .snapshot(snapshot))

        XCTAssertEqual(state.cursor.graph[1]?.values, probeGraph[1]?.values, "live shows the program's state")
        XCTAssertEqual(state.session.skippedEvents, UInt64(all[2].events.count))
        XCTAssertEqual(state.session.notice?.text, "fell behind: 801 events skipped, resynchronised from a snapshot")
        XCTAssertEqual(state.cursor.log.end, beforeGap, "history before the gap is kept")
        XCTAssertEqual(state.cursor.log.graph(at: all[0].events.count + 40)[1]?.values, 1,
                       "the cursor can still go back before the gap")
        XCTAssertEqual(state.cursor.log.graph(at: beforeGap - 1)[1]?.values, pastValues)

        // Events after the gap fold onto the snapshot.
        var more = BatchBuilder()
        more.value(1, "after the gap")
        _ = reduce(&state, .batch(more.build()))
        XCTAssertEqual(state.cursor.graph[1]?.values, (probeGraph[1]?.values ?? 0) + 1)
        XCTAssertEqual(state.cursor.log.graph(at: state.cursor.log.end)[1]?.values, state.cursor.graph[1]?.values)
        XCTAssertEqual(state.cursor.log.graph(at: beforeGap)[1]?.values, probeGraph[1]?.values)
    }

    /// One burst of 5,000 events still gets a checkpoint every 512, and the graph at any
    /// position inside it is exact.
    func testABigBatchIsCheckpointedInside() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Subject"])
        for i in 0..<4_996 { b.value(NodeID(i % 2 + 1)) }
        let batch = b.build()
        var history = History()
        var live = Graph()
        history.append(batch, folding: &live)
        XCTAssertEqual(history.checkpointPositions, Array(stride(from: 512, through: 5_000, by: 512)))
        XCTAssertEqual(live, Graph.folding(batch), "folding in chunks equals folding the whole")
        for position in [0, 700, 2_049, 4_999, 5_000] {
            XCTAssertEqual(history.graph(at: position)[1]?.values, reference(at: position, [batch])[1]?.values, "at \(position)")
        }
    }

    /// The client keeps at most 48 bytes per event of ordinary traffic (values over
    /// 100 stages, the first value of each described once per batch, as the probe's
    /// default policy does for values that are not scalars), checkpoints aside.
    /// The history keeps each event in 40 bytes by its kind's payload: every kind comes
    /// back as it went in, with a short text, a long one, and none.
    func testEveryKindComesBackFromTheHistory() {
        for text in ["", "short", "a text longer than eight bytes"] {
            var batch = KindSamples.batch(KindSamples.kinds)
            for i in batch.events.indices where batch.events[i].kind.payload.text { batch.events[i].text = text }
            var history = History()
            var live = Graph()
            history.append(batch, folding: &live)
            let kept = stride(from: 1, through: batch.events.count, by: 1).map { history.event(at: $0) }
            XCTAssertEqual(kept, batch.events, "texts: \"\(text)\"")
        }
    }

    func testAnEventCostsAtMost48Bytes() {
        let history = valueTraffic { batch, i in i < 100 ? "value \(batch * 1_000 + i)" : nil }
        XCTAssertLessThanOrEqual(history.bytesPerEvent, 48, "\(history.bytesPerEvent) bytes per event")
        XCTAssertEqual(history.event(at: history.end - 900)?.text, "value 99099", "the newest value text is kept")
        XCTAssertEqual(history.event(at: history.end)?.text, "", "a value that was not described has no text")
    }

    /// Recordings from probes that described values once per batch carry the text in
    /// `lastValues`: it belongs to the stage's last value event of the batch.
    func testOlderRecordingsGiveTheBatchTextToTheLastValue() {
        var history = History()
        var live = Graph()
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map"])
        b.value(1)
        b.valueDescribedPerBatch(1, "newest")
        history.append(b.build(), folding: &live)
        XCTAssertEqual(history.event(at: history.end)?.text, "newest")
        XCTAssertEqual(history.event(at: history.end - 1)?.text, "")
        XCTAssertEqual(live[1]?.lastValue, "newest")
    }

    /// Today's probes put each text on its own event; an undescribed value after it
    /// stays undescribed.
    func testATextStaysOnTheValueItDescribes() {
        var history = History()
        var live = Graph()
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map"])
        b.value(1, "first")
        b.value(1)
        history.append(b.build(), folding: &live)
        XCTAssertEqual(history.event(at: history.end - 1)?.text, "first")
        XCTAssertEqual(history.event(at: history.end)?.text, "")
        XCTAssertEqual(live[1]?.lastValue, "first")
    }

    /// Probes send the text of every scalar value (numbers, short strings): those texts
    /// live inside the 40-byte entries, so such traffic costs no more than bare events.
    func testScalarValueTextsCostNothingExtra() {
        let history = valueTraffic { batch, i in String(batch * 1_000 + i) }
        XCTAssertLessThanOrEqual(history.bytesPerEvent, 40, "\(history.bytesPerEvent) bytes per event")
        XCTAssertEqual(history.event(at: history.end)?.text, "99999")
        XCTAssertEqual(history.event(at: history.end - 1)?.text, "99998")
    }

    /// Texts kept inside the entry and beside it read back exactly, whatever their bytes.
    func testValueTextsReadBackExactly() {
        let texts = ["", "0", "-1", "12345678", "123456789", "héllo", "日本", "a\u{0}b", "true", "3.14159265358979"]
        var history = History()
        var live = Graph()
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map"])
        for text in texts { b.value(1, text.isEmpty ? nil : text) }
        history.append(b.build(), folding: &live)
        let back = (0..<texts.count).map { history.event(at: history.end - texts.count + 1 + $0)?.text }
        XCTAssertEqual(back, texts)
        XCTAssertEqual(history.event(at: history.end)?.other, 0, "a value has no other stage")
    }

    /// 100 batches of 1,000 values over 100 stages; `text(batch, i)` is the text of the
    /// `i`th value of the batch, or nil for none.
    private func valueTraffic(text: (Int, Int) -> String?) -> History {
        var history = History()
        history.limit = 1_000_000
        var live = Graph()
        var first = BatchBuilder()
        first.chain(from: 1, subscriber: "Sink", ops: (0..<100).map { "Op\($0)" })
        history.append(first.build(), folding: &live)
        for batch in 0..<100 {
            var b = BatchBuilder()
            for i in 0..<1_000 { b.value(NodeID(i % 100 + 1), text(batch, i)) }
            history.append(b.build(), folding: &live)
        }
        return history
    }

    // MARK: - Causes

    /// A recording written and read back keeps every event's number, cause and thread,
    /// in the history and in the snapshot's recent causes, so a replay's chains are the
    /// live ones.
    func testARecordingKeepsNumbersCausesAndThreads() throws {
        let path = NSTemporaryDirectory() + "/pipescope-causes-\(UUID().uuidString).pipescope"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])  // #11…#19
        b.add(.value, 3) { $0.text = "23"; $0.thread = "main"; $0.causedBy = 7 }              // #20, cause in the snapshot
        b.add(.value, 2) { $0.text = "23"; $0.thread = "worker 1"; $0.causedBy = 20 }
        b.add(.value, 1) { $0.text = "a text longer than eight bytes"; $0.thread = "worker 1"; $0.causedBy = 21 }
        b.add(.cancelled, 1) { $0.thread = "worker 1"; $0.causedBy = 22; $0.cause = .downstream }
        var batch = b.build(sequence: 23)
        // Numbered as the probe numbers them (the packer counts causes back from them).
        for i in batch.events.indices { batch.events[i].id = EventID(11 + i) }
        var origin = StageEvent(.value, node: 9, time: BatchBuilder.baseNanos - 1_000, text: "7")
        (origin.id, origin.thread) = (7, "main")
        var snapshot = GraphSnapshot(sequence: 10)
        snapshot.recent = [origin]

        let writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = "causes"
        writer.append(welcome)
        writer.append(snapshot)
        writer.append(batch)
        writer.close()

        var recording = try RecordingReader(path: path)
        var stream = WireStreamReader()
        var state = AppState(targetName: "causes")
        while let message = try recording.next() {
            switch message.body {
            case .snapshot(let s)?: _ = reduce(&state, .snapshot(try stream.snapshot(s)))
            case .packed(let p)?: _ = reduce(&state, .batch(try stream.batch(p)))
            default: break
            }
        }
        let log = state.cursor.log
        let kept = (log.end - 3...log.end).compactMap { log.event(at: $0) }
        XCTAssertEqual(kept.map(\.id), [20, 21, 22, 23])
        XCTAssertEqual(kept.map(\.causedBy), [7, 20, 21, 22])
        XCTAssertEqual(kept.map(\.thread), ["main", "worker 1", "worker 1", "worker 1"])
        XCTAssertEqual(kept.map(\.text), ["23", "23", "a text longer than eight bytes", ""])
        XCTAssertEqual(log.event(at: log.start + 1)?.id, 11)
        XCTAssertEqual(log.event(at: log.start + 1)?.thread, "", "a subscribe records no thread of its own")
        XCTAssertEqual(log.earlier, [origin])
        XCTAssertEqual(log.position(ofEvent: 21), log.end - 2)
        let chain = try XCTUnwrap(CauseChain.at(log.end, in: log, graph: state.cursor.graph))
        XCTAssertEqual(chain.hops.map(\.id), [23, 22, 21, 20, 7])
        XCTAssertEqual(chain.end, .origin)
    }

    /// A resynchronising snapshot's recent causes fill the gap the inspector missed.
    func testAResyncKeepsTheRecentCausesOfTheGap() {
        var history = History()
        var graph = Graph()
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map"])
        history.append(b.build(sequence: 3), folding: &graph)
        var missed = StageEvent(.value, node: 1, time: BatchBuilder.baseNanos, text: "1")
        missed.id = 8
        var alreadyKept = missed
        alreadyKept.id = 2
        history.resync(to: graph, recent: [missed, alreadyKept])
        XCTAssertEqual(history.earlier.map(\.id), [8], "#2 is in the history already")
        XCTAssertEqual(history.event(numbered: 8)?.event, missed)
        XCTAssertNil(history.event(numbered: 8)?.position)
        XCTAssertEqual(history.event(numbered: 2)?.position, 2)
    }

    /// Delivery times come back exactly up to 2.1 s, and in microseconds beyond, so past
    /// graphs fold the same times as the live one.
    func testDeliveryTimesComeBack() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map"])
        for nanos: Int64 in [1, 2_147_483_647, 3_000_000_123] {
            b.add(.value, 1) { $0.selfNanos = nanos; $0.totalNanos = nanos * 2; $0.thread = "main" }
        }
        var history = History()
        var live = Graph()
        history.append(b.build(), folding: &live)
        let back = (history.end - 2...history.end).compactMap { history.event(at: $0) }
        XCTAssertEqual(back.map(\.selfNanos), [1, 2_147_483_647, 3_000_000_000])
        XCTAssertEqual(back.map(\.totalNanos), [2, 4_294_967_000, 6_000_000_000])
        let past = history.graph(at: history.end)[1]?.times?.sink
        XCTAssertEqual(past?.count, 3, "a past graph folds the times too")
        XCTAssertEqual(past?.max, 3_000_000_000, "the slow one to the microsecond")
    }

    /// An entry is 40 bytes with its cause, thread and delivery times (32 before them).
    func testAnEntryIs40Bytes() {
        XCTAssertEqual(MemoryLayout<HistoryEntry>.size, 40)
        XCTAssertEqual(MemoryLayout<HistoryEntry>.stride, 40)
    }
}
