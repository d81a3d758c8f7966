import PipescopeGraph
import PipescopeTestSupport
import XCTest

final class GraphPruneTests: XCTestCase {
    private let t0 = BatchBuilder.baseNanos
    private let second: Int64 = 1_000_000_000
    private let minute = Retention(seconds: 60, maxEndedPipelines: 500)

    /// Pipeline 1 ← 2 finished at t0; pipeline 3 ← 4 still active.
    private func endedAndLive() -> Graph {
        var b = BatchBuilder(start: t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Just"])
        b.finish(2)
        b.finish(1)
        b.chain(from: 3, subscriber: "Sink", ops: ["Map", "Timer"])
        return Graph.folding(b.build())
    }

    func testEndedPipelineStaysWithinRetention() {
        var g = endedAndLive()
        g.prune(now: t0 + 59 * second, retention: minute)
        XCTAssertEqual(g.roots, [1, 3])
        XCTAssertEqual(g.nodes.count, 4)
    }

    func testEndedPipelineIsRemovedAfterRetention() {
        var g = endedAndLive()
        g.prune(now: t0 + 61 * second, retention: minute)
        XCTAssertEqual(g.roots, [3])
        XCTAssertEqual(Set(g.nodes.keys), [3, 4])
    }

    func testLiveStagesAreNeverRemoved() {
        var g = endedAndLive()
        g.prune(now: t0 + 1_000_000 * second, retention: Retention(seconds: 0, maxEndedPipelines: 0))
        XCTAssertEqual(g.roots, [3])
        XCTAssertEqual(Set(g.nodes.keys), [3, 4])
    }

    func testEndedRootWithALiveUpstreamIsKept() {
        var b = BatchBuilder(start: t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Timer"])
        b.finish(1)
        var g = Graph.folding(b.build())
        g.prune(now: t0 + 3600 * second, retention: Retention(seconds: 1, maxEndedPipelines: 0))
        XCTAssertEqual(g.roots, [1])
        XCTAssertEqual(Set(g.nodes.keys), [1, 2])
    }

    func testEndedInnerSubtreeIsRemovedAtAnyDepth() {
        // 1 FlatMap ← 2 Map ← 3 Timer, all live; 2 also has inner 4 ← 5, both ended,
        // and 3 has inner 6, ended but recently.
        var b = BatchBuilder(start: t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["FlatMap", "Map", "Timer"])
        b.subscribe(4, parent: 2, op: "Just", subscriber: "FlatMap")
        b.subscribe(5, parent: 4, op: "Deferred", subscriber: "Just")
        b.finish(5)
        b.finish(4)
        b.now = t0 + 100 * second
        b.subscribe(6, parent: 3, op: "Empty", subscriber: "Timer")
        b.finish(6)
        var g = Graph.folding(b.build())
        g.prune(now: t0 + 120 * second, retention: minute)
        XCTAssertEqual(Set(g.nodes.keys), [1, 2, 3, 6])
        XCTAssertEqual(g[2]?.children, [3])
        XCTAssertEqual(g[3]?.children, [6])
        g.prune(now: t0 + 200 * second, retention: minute)
        XCTAssertEqual(Set(g.nodes.keys), [1, 2, 3])
        XCTAssertEqual(g[3]?.children, [])
    }

    func testInnerSubtreeWithALiveStageIsKept() {
        var b = BatchBuilder(start: t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["FlatMap", "Timer"])
        b.subscribe(3, parent: 1, op: "Map", subscriber: "FlatMap")
        b.subscribe(4, parent: 3, op: "Timer", subscriber: "Map")
        b.subscription(4)
        b.finish(3)  // odd, but the upstream is still live
        var g = Graph.folding(b.build())
        g.prune(now: t0 + 3600 * second, retention: minute)
        XCTAssertEqual(Set(g.nodes.keys), [1, 2, 3, 4])
    }

    func testEndedRootsAreCappedOldestFirst() {
        var b = BatchBuilder(start: t0, step: 0)
        for id: NodeID in 1...5 {
            b.subscribe(id, op: "Just", subscriber: "Sink")
            b.finish(id)
        }
        b.subscribe(6, op: "Timer", subscriber: "Sink")
        var g = Graph.folding(b.build())
        g.prune(now: t0, retention: Retention(seconds: 3600, maxEndedPipelines: 2))
        XCTAssertEqual(g.roots, [4, 5, 6])
        XCTAssertEqual(Set(g.nodes.keys), [4, 5, 6])
    }

    /// A `flatMap` that subscribes an inner publisher per value: under one stage at most
    /// `maxEndedInner` ended inner subtrees stay, the oldest going first; live ones and
    /// the pipeline's own upstream are never touched. The prune that looks only at the
    /// ended stages (the inspector's) leaves the same graph.
    func testEndedInnerSubtreesUnderOneStageAreCappedOldestFirst() {
        var b = BatchBuilder(start: t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["FlatMap", "PassthroughSubject"])
        for id: NodeID in 3...8 {
            b.subscribe(id, parent: 1, op: "Just", subscriber: "FlatMap")
            b.finish(id)
        }
        b.subscribe(9, parent: 1, op: "Future", subscriber: "FlatMap")
        b.subscribe(10, parent: 1, op: "Deferred", subscriber: "FlatMap")
        b.subscribe(11, parent: 10, op: "Just", subscriber: "Deferred")
        b.finish(11)
        b.finish(10)
        let graph = Graph.folding(b.build())
        let retention = Retention(seconds: 3600, maxEndedPipelines: 500, maxEndedInner: 3)
        var full = graph
        full.prune(now: t0, retention: retention)
        XCTAssertEqual(full[1]?.children, [2, 7, 8, 9, 10], "the three newest ended (7, 8, 10 with its 11) and the live 9")
        XCTAssertEqual(Set(full.nodes.keys), [1, 2, 7, 8, 9, 10, 11])
        var incremental = graph
        let ended = Set(graph.nodes.values.filter { $0.status.isTerminal }.map(\.id))
        XCTAssertTrue(incremental.prune(now: t0, retention: retention, ended: ended))
        XCTAssertEqual(incremental, full)
        // Within the cap nothing goes.
        var roomy = graph
        roomy.prune(now: t0, retention: Retention(seconds: 3600, maxEndedPipelines: 500, maxEndedInner: 7))
        XCTAssertEqual(roomy.nodes.count, graph.nodes.count)
    }

    func testTheInnerCapIsReadFromTheEnvironment() {
        XCTAssertEqual(Retention.fromEnvironment(["PIPESCOPE_RETAIN_INNER": "20"]).maxEndedInner, 20)
        XCTAssertEqual(Retention.fromEnvironment(["PIPESCOPE_RETAIN_INNER": "-1"]).maxEndedInner, 500)
        XCTAssertEqual(Retention.fromEnvironment([:]), .standard)
    }

    func testPrunedStagesIgnoreLaterEvents() {
        var g = endedAndLive()
        g.prune(now: t0 + 61 * second, retention: minute)
        var b = BatchBuilder(start: t0 + 62 * second)
        b.value(1, "late")
        b.cancel(2)
        g.fold(b.build())
        XCTAssertNil(g[1])
        XCTAssertNil(g[2])
        XCTAssertEqual(g.roots, [3])
    }

    func testPruneKeepsSnapshotConsistent() {
        var g = endedAndLive()
        g.prune(now: t0 + 61 * second, retention: minute)
        var h = Graph()
        h.load(g.snapshot())
        XCTAssertEqual(GraphDump.lines(h), GraphDump.lines(g))
        XCTAssertEqual(GraphDump.lines(g), [
            "Map<-Sink active req=unlimited values=0",
            "  Timer<-Map active req=unlimited values=0",
        ])
    }
}
