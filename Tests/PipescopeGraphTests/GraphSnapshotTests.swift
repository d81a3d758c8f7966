import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// The inspector loads the probe's snapshot and folds later batches; the result must be
/// the graph the probe got by folding everything.
final class GraphSnapshotTests: XCTestCase {
    /// Folds `first` then `second` directly, and via a snapshot taken after `first`.
    private func bothWays(_ first: EventBatch, _ second: EventBatch) -> (folded: Graph, loaded: Graph) {
        let folded = Graph.folding(first, second)
        var loaded = Graph()
        loaded.load(Graph.folding(first).snapshot())
        loaded.fold(second)
        return (folded, loaded)
    }

    func testLoadThenApplyEqualsFoldingEverything() {
        var a = BatchBuilder()
        a.chain(from: 1, subscriber: "Sink", ops: ["Scan", "Debounce", "Timer"])
        a.value(3, "t1")
        a.subscribe(4, op: "TryMap", subscriber: "Sink")
        a.subscription(4)
        a.request(4, .count(2))
        a.subscribe(5, op: "Just", subscriber: "Sink")
        a.subscription(5)
        a.request(5, .unlimited)
        a.value(5, "1")
        a.finish(5)
        var b = BatchBuilder(start: a.now)
        b.value(3, "t2")
        b.value(2, "t2")
        b.value(1, "[t1, t2]")
        b.demand(4, .count(1))
        b.value(4, "x")
        b.fail(4, "bad")
        b.subscribe(6, parent: 1, op: "Inner", subscriber: "Scan")
        b.subscription(6)
        b.cancel(1, cause: .inspector)
        let (folded, loaded) = bothWays(a.build(sequence: 20, dropped: 1), b.build(sequence: 31, dropped: 2))
        XCTAssertEqual(GraphDump.lines(loaded, showValues: true), GraphDump.lines(folded, showValues: true))
        XCTAssertEqual(loaded.snapshot(), folded.snapshot())
        XCTAssertEqual(loaded, folded)
        XCTAssertEqual(loaded.sequence, 31)
        XCTAssertEqual(loaded.dropped, 2)
    }

    func testLoadThenApplyWithSharedSubscriptions() {
        var a = BatchBuilder()
        BatchFixtures.filterMapSubject(into: &a, values: [1, 2])
        var b = BatchBuilder(start: a.now)
        b.value(3, "3")
        b.value(2, "30")
        b.value(1, "30")
        b.cancel(3, cause: .inspector)
        let (folded, loaded) = bothWays(a.build(), b.build())
        XCTAssertEqual(loaded.snapshot(), folded.snapshot())
        XCTAssertEqual(GraphDump.lines(loaded, showValues: true), GraphDump.lines(folded, showValues: true))
        for id: NodeID in [1, 2, 3] {
            XCTAssertEqual(loaded[id]?.status, .cancelled, "the cancel on the owner reached #\(id)")
            XCTAssertEqual(loaded[id]?.subscriptionOwner, folded[id]?.subscriptionOwner)
            XCTAssertEqual(Set(loaded[id]?.sharers ?? []), Set(folded[id]?.sharers ?? []))
        }
    }

    /// A forwarding link (AnyPublisher) made before the snapshot must keep mirroring
    /// events that arrive after it.
    func testLoadThenApplyKeepsForwarding() {
        var a = BatchBuilder()
        a.subscribe(1, op: "AnyPublisher", subscriber: "Sink")
        a.subscribe(2, parent: 1, op: "Map", subscriber: "Sink")
        a.forward(1, to: 2)
        a.subscription(2)
        a.request(2, .unlimited)
        var b = BatchBuilder(start: a.now)
        b.value(2, "7")
        b.finish(2)
        let (folded, loaded) = bothWays(a.build(), b.build())
        XCTAssertEqual(folded[1]?.status, .finished)
        XCTAssertEqual(loaded[1]?.status, folded[1]?.status, "the forwarder stops mirroring after a snapshot")
        XCTAssertEqual(loaded[1]?.values, folded[1]?.values)
        XCTAssertEqual(loaded[1]?.forwardsTo, 2)
    }

    func testSnapshotRoundTripsEveryField() throws {
        let g = Graph.folding(BatchFixtures.realisticBatch())
        var h = Graph()
        h.load(g.snapshot())
        XCTAssertEqual(h.snapshot(), g.snapshot())
        for id in g.nodes.keys {
            var a = try XCTUnwrap(g[id]), b = try XCTUnwrap(h[id])
            // Sharer order is not part of the wire state.
            a.sharers.sort()
            b.sharers.sort()
            XCTAssertEqual(b, a, "#\(id)")
        }
        XCTAssertEqual(h.roots, g.roots)
        XCTAssertEqual(h[6]?.error, "ParseError.notANumber(\"x\")")
        XCTAssertEqual(h[5]?.cause, .owner)
    }

    func testSnapshotNodesAreInIdOrder() {
        let s = Graph.folding(BatchFixtures.realisticBatch()).snapshot()
        XCTAssertEqual(s.nodes.map(\.info.id), [1, 2, 3, 4, 5, 6, 7])
    }

    func testLoadReplacesThePreviousGraph() {
        var g = Graph.folding(BatchFixtures.realisticBatch())
        var b = BatchBuilder()
        b.subscribe(10, op: "Just", subscriber: "Sink")
        var snapshot = Graph.folding(b.build()).snapshot()
        snapshot.sequence = 40
        g.load(snapshot)
        XCTAssertEqual(Array(g.nodes.keys), [10])
        XCTAssertEqual(g.roots, [10])
        XCTAssertEqual(g.sequence, 40, "the snapshot's sequence")
    }

    /// A stage adopted by a downstream made after it (subscribe(on:)) has a parent with a
    /// larger id: loading a snapshot must still put it under that parent.
    func testAnAdoptedStageStaysUnderItsNewerParent() {
        var b = BatchBuilder()
        b.subscribe(1, op: "PassthroughSubject", subscriber: "SubscribeOn")
        b.subscribe(2, op: "SubscribeOn", subscriber: "Sink")
        b.add(.adopt, 1) { $0.other = 2 }
        let folded = Graph.folding(b.build())
        XCTAssertEqual(folded.roots, [2])
        var loaded = Graph()
        loaded.load(folded.snapshot())
        XCTAssertEqual(loaded.roots, [2])
        XCTAssertEqual(loaded[2]?.children, [1])
        XCTAssertEqual(loaded, folded)
    }
}
