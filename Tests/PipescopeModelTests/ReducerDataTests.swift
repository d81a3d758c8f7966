import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// What the reducer does with data from the probe: snapshots, batches, ticks and
/// connection changes.
final class ReducerDataTests: XCTestCase {
    private let t0 = ModelFixtures.t0
    private let second = ModelFixtures.second

    /// `count` events (a Timer's subscribe and its values), numbered up to `sequence`
    /// (default: `count`) as a probe numbers them.
    private func batch(events count: Int, firstID: NodeID = 1, start: Int64 = ModelFixtures.t0,
                       sequence: UInt64? = nil) -> EventBatch {
        var b = BatchBuilder(start: start)
        b.subscribe(firstID, op: "Timer", subscriber: "Sink")
        for _ in 1..<count { b.value(firstID) }
        var batch = b.build(sequence: sequence)
        let first = batch.trailer.sequence - UInt64(count) + 1
        for i in batch.events.indices { batch.events[i].id = first + UInt64(i) }
        return batch
    }

    func testSnapshotThenBatchesUpdateGraphAndHistory() {
        var first = BatchBuilder()
        BatchFixtures.filterMapSubject(into: &first, values: [1])
        var second = BatchBuilder(start: first.now)
        second.value(3, "2")
        second.value(2, "20")
        second.cancel(3, cause: .inspector)
        let snapshot = Graph.folding(first.build()).snapshot()

        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        XCTAssertTrue(reduce(&state, .snapshot(snapshot)).isEmpty)
        XCTAssertEqual(state.cursor.graph.nodes.count, 3)
        XCTAssertEqual(state.cursor.log.end, 0, "a snapshot is a state, not events")

        XCTAssertTrue(reduce(&state, .batch(second.build(sequence: 99, dropped: 4))).isEmpty)
        // History keeps each stage's newest value text on its last value event of the batch.
        var expected = second.batch.events
        expected[0].text = "2"
        expected[1].text = "20"
        for i in expected.indices { expected[i].id = 97 + UInt64(i) }  // numbered back from the sequence, 99
        XCTAssertEqual(stride(from: 1, through: state.cursor.log.end, by: 1).compactMap { state.cursor.log.event(at: $0) }, expected)
        XCTAssertEqual(state.cursor.graph[2]?.values, 2)
        XCTAssertEqual(state.cursor.graph[2]?.lastValue, "20")
        XCTAssertEqual(state.cursor.graph[1]?.status, .cancelled)
        XCTAssertEqual(state.cursor.graph.dropped, 4)
        XCTAssertEqual(state.cursor.graph.sequence, 99)
        XCTAssertEqual(GraphDump.lines(state.cursor.graph), GraphDump.lines(Graph.folding(first.build(), second.build())))
    }

    /// History evicts oldest first, a checkpoint span (512 events) at a time.
    /// A replay's note of where its recording ends is on the status line from the start,
    /// after the recording's messages, not only on standard error after quitting.
    func testANoticeMessageIsShownUntilTheNextKey() {
        var state = AppState(targetName: "app")
        _ = reduce(&state, .replaying(file: "cut.pipescope", process: "app", pid: 7))
        _ = reduce(&state, .batch(batch(events: 3)))
        let note = Notice(text: "cut.pipescope: the recording ends after 3 events", isError: true)
        _ = reduce(&state, .notice(note))
        XCTAssertEqual(state.session.notice, note)
        _ = reduce(&state, .action(.moveDown))
        XCTAssertNil(state.session.notice, "a key clears it, as any notice")
    }

    func testHistoryIsBoundedOldestEvictedFirst() {
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        state.historyLimit = 1000
        var all: [StageEvent] = []
        for i in 0..<5 {
            let b = batch(events: 600, firstID: NodeID(i + 1), start: t0 + Int64(i) * second, sequence: UInt64(i + 1) * 600)
            all += b.events
            _ = reduce(&state, .batch(b))
            XCTAssertLessThanOrEqual(state.cursor.log.end - state.cursor.log.start, 1000 + History.checkpointStride)
        }
        XCTAssertGreaterThan(state.cursor.log.start, 0, "the oldest events were evicted")
        let kept = stride(from: state.cursor.log.start + 1, through: state.cursor.log.end, by: 1).compactMap { state.cursor.log.event(at: $0) }
        XCTAssertEqual(kept, Array(all.suffix(kept.count)), "what is kept is the newest, in order")
        XCTAssertEqual(state.cursor.graph.nodes.count, 5, "node summaries outlive evicted events")
    }

    func testOneBatchLargerThanTheLimit() {
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        state.historyLimit = 600
        let b = batch(events: 2000)
        _ = reduce(&state, .batch(b))
        XCTAssertLessThanOrEqual(state.cursor.log.end - state.cursor.log.start, 600)
        XCTAssertEqual(state.cursor.log.graph(at: state.cursor.log.end).nodes, state.cursor.liveGraph.nodes,
                       "the newest position is still exact")
    }

    func testRateFromBatchesAndTicks() {
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .tick(nanos: t0))
        XCTAssertEqual(state.session.rate.perSecond, 0)
        _ = reduce(&state, .batch(batch(events: 50)))
        _ = reduce(&state, .tick(nanos: t0 + second))
        XCTAssertEqual(state.session.rate.perSecond, 50, accuracy: 0.001)
        _ = reduce(&state, .batch(batch(events: 100, firstID: 2)))
        _ = reduce(&state, .tick(nanos: t0 + 2 * second))
        XCTAssertEqual(state.session.rate.perSecond, 75, accuracy: 0.001)
        _ = reduce(&state, .tick(nanos: t0 + 4 * second))
        XCTAssertEqual(state.session.rate.perSecond, 0, accuracy: 0.001, "idle for a whole window")
    }

    func testRateOverHalfSecondTicks() {
        var rate = EventRate()
        rate.tick(0)
        for i in 1...8 {
            rate.record(10)
            rate.tick(Int64(i) * 250_000_000)
        }
        XCTAssertEqual(rate.perSecond, 40, accuracy: 0.001)
    }

    func testTickPrunesEndedPipelines() {
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        var b = BatchBuilder(start: t0, step: 0)
        b.subscribe(1, op: "Just", subscriber: "Sink")
        b.finish(1)
        b.subscribe(2, op: "Timer", subscriber: "Sink")
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 30 * second))
        XCTAssertEqual(state.cursor.graph.roots, [1, 2])
        _ = reduce(&state, .tick(nanos: t0 + 61 * second))
        XCTAssertEqual(state.cursor.graph.roots, [2])
    }

    func testAttachedSetsConnectionAndPid() {
        var state = AppState(targetName: "")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        XCTAssertEqual(state.session.connection, .connecting)
        _ = reduce(&state, .attached(process: "server", pid: 77))
        XCTAssertEqual(state.session.connection, .connected)
        XCTAssertEqual(state.session.pid, 77)
        XCTAssertEqual(state.session.targetName, "server", "an unnamed target takes the process name")

        var named = AppState(targetName: "demo")
        _ = reduce(&named, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&named, .attached(process: "server", pid: 77))
        XCTAssertEqual(named.session.targetName, "demo")
    }

    func testDisconnectedKeepsTheGraph() {
        var state = ModelFixtures.realistic()
        state.tree.selection = 5
        let before = state.cursor.graph
        XCTAssertTrue(reduce(&state, .disconnected("the program exited")).isEmpty)
        XCTAssertEqual(state.session.connection, .disconnected("the program exited"))
        XCTAssertEqual(state.cursor.graph, before)
        XCTAssertEqual(state.tree.selection, 5)
    }

    func testResize() {
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .resize(width: 132, height: 50, treePageSize: 40))
        XCTAssertEqual(state.width, 132)
        XCTAssertEqual(state.height, 50)
        XCTAssertEqual(state.tree.pageSize, 40, "the tree's page size arrives with the size, through the reducer")
    }

    func testBatchForPrunedStagesChangesNothing() {
        var state = ModelFixtures.realistic()
        _ = reduce(&state, .tick(nanos: t0 + 3600 * second))
        let before = state.cursor.graph
        var b = BatchBuilder(start: t0 + 3601 * second)
        b.value(5, "late")
        b.cancel(7)
        _ = reduce(&state, .batch(b.build(sequence: before.sequence)))
        XCTAssertEqual(GraphDump.lines(state.cursor.graph), GraphDump.lines(before))
    }
}
