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
}
