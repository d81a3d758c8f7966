import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// The events that re-shape the tree after the fact: ADOPT (subscribe(on:)), FEEDS
/// (share, multicast, subscribe(subject)), and orphan marking after a cancel from outside.
final class GraphLinkTests: XCTestCase {
    private func fold(_ build: (inout BatchBuilder) -> Void) -> Graph {
        var b = BatchBuilder()
        build(&b)
        return Graph.folding(b.build())
    }

    func testAdoptMovesARootUnderItsDownstream() {
        let g = fold { b in
            b.subscribe(1, op: "SubscribeOn", type: "SubscribeOn<…>", subscriber: "Sink")
            b.subscribe(2, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "Inner")
            b.add(.adopt, 2) { $0.other = 1 }
        }
        XCTAssertEqual(g.roots, [1])
        XCTAssertEqual(g[1]?.children, [2])
        XCTAssertEqual(g[2]?.parent, 1)
    }

    func testAdoptNeverMovesAStageThatHasAParentOrMakesACycle() {
        let g = fold { b in
            b.subscribe(1, op: "A", type: "A", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "B", type: "B", subscriber: "A")
            b.add(.adopt, 1) { $0.other = 2 }   // would make a cycle
            b.add(.adopt, 2) { $0.other = 1 }   // already placed
        }
        XCTAssertEqual(g.roots, [1])
        XCTAssertEqual(g[1]?.children, [2])
    }

    func testFeedsPlacesAnUpstreamOnceAndReferencesItElsewhere() {
        let g = fold { b in
            b.subscribe(1, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "Sink")
            b.subscribe(2, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "Sink")
            b.subscribe(3, op: "Map", type: "Map<…>", subscriber: "Subject")  // connect(): a root
            b.add(.feeds, 3) { $0.other = 1 }
            b.add(.feeds, 3) { $0.other = 2 }
        }
        XCTAssertEqual(g.roots, [1, 2], "the shared upstream is no longer a root")
        XCTAssertEqual(g[1]?.children, [3], "placed under the first branch it feeds")
        XCTAssertEqual(g[2]?.feeders, [3], "referenced from the second")
        XCTAssertEqual(g[3]?.feeds, [1, 2])
        // A snapshot keeps the links.
        var loaded = Graph()
        loaded.load(g.snapshot())
        XCTAssertEqual(loaded[2]?.feeders, [3])
        XCTAssertEqual(loaded[1]?.children, [3])
    }

    func testACancelFromOutsideOrphansTheStagesDownstream() {
        let g = fold { b in
            b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])
            b.cancel(3, cause: .inspector)
        }
        XCTAssertEqual(g[3]?.status, .cancelled)
        XCTAssertEqual(g[3]?.cause, .inspector)
        XCTAssertEqual(g[3]?.orphaned, false)
        XCTAssertEqual(g[2]?.orphaned, true)
        XCTAssertEqual(g[1]?.orphaned, true, "every live stage downstream is orphaned")
        XCTAssertEqual(g[1]?.status, .active, "orphans get no completion: they stay active")
    }

    func testAStageStillFedByAnotherUpstreamIsNotOrphaned() {
        let g = fold { b in
            b.subscribe(1, op: "FlatMap", type: "FlatMap", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "PassthroughSubject", type: "PassthroughSubject", subscriber: "FlatMap")
            b.subscribe(3, parent: 1, op: "Just", type: "Just", subscriber: "FlatMap")
            b.cancel(3, cause: .inspector)
        }
        XCTAssertEqual(g[1]?.orphaned, false, "the FlatMap's other upstream still feeds it")
        let last = fold { b in
            b.subscribe(1, op: "FlatMap", type: "FlatMap", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "PassthroughSubject", type: "PassthroughSubject", subscriber: "FlatMap")
            b.subscribe(3, parent: 1, op: "Just", type: "Just", subscriber: "FlatMap")
            b.finish(2)
            b.cancel(3, cause: .inspector)
        }
        XCTAssertEqual(last[1]?.orphaned, true, "its last live upstream was cancelled")
    }

    func testACancelByTheDownstreamOrphansNothing() {
        let g = fold { b in
            b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])
            b.cancel(3, cause: .downstream)
        }
        XCTAssertFalse(g.nodes.values.contains { $0.orphaned })
    }

    // MARK: - Mirrors and tree order (what a trace export walks)

    /// The stages mirroring a stage are kept by the fold, the same after a snapshot is
    /// loaded, and forgotten with the stage when it is pruned.
    func testMirrorsOfAStageFollowTheFoldTheSnapshotAndPruning() {
        var b = BatchBuilder()
        b.subscribe(1, op: "AnyPublisher", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Map", subscriber: "AnyPublisher")
        b.subscribe(3, op: "AnyPublisher", subscriber: "Sink")
        b.forward(1, to: 2)
        b.forward(3, to: 2)
        var g = Graph.folding(b.build())
        XCTAssertEqual(g.mirrors(of: 2), [1, 3])
        XCTAssertEqual(g.mirrors(of: 1), [])
        XCTAssertEqual(g.mirrors(of: 99), [])

        var loaded = Graph()
        loaded.load(g.snapshot())
        XCTAssertEqual(loaded.mirrors(of: 2), [1, 3], "a snapshot's stages in id order")

        var end = BatchBuilder()
        for id: NodeID in [1, 2, 3] { end.cancel(id) }
        g.fold(end.build())
        g.prune(now: Int64.max / 2, retention: Retention(seconds: 0, maxEndedPipelines: 0))
        XCTAssertFalse(g.contains(2))
        XCTAssertEqual(g.mirrors(of: 2), [], "pruned with the stage")
    }

    /// Each stage after its downstream: roots in the order they came, each followed by
    /// its upstreams, depth first; an adopted root moves under its downstream.
    func testTreeOrderPutsEachStageAfterItsDownstream() {
        let g = fold { b in
            b.subscribe(1, op: "Sink", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "Merge", subscriber: "Sink")
            b.subscribe(3, parent: 2, op: "Just", subscriber: "Merge")
            b.subscribe(4, op: "Sink", subscriber: "Sink")
            b.subscribe(5, parent: 2, op: "Empty", subscriber: "Merge")
            b.subscribe(6, op: "SubscribeOn", subscriber: "Sink")
            b.subscribe(7, op: "Just", subscriber: "SubscribeOn")
            b.add(.adopt, 7) { $0.other = 6 }
        }
        XCTAssertEqual(g.treeOrder(), [1, 2, 3, 5, 4, 6, 7])
        XCTAssertEqual(Graph().treeOrder(), [])
    }
}
