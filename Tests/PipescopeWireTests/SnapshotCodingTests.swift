import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A snapshot crosses the wire into exactly the graph the probe has.
final class SnapshotCodingTests: XCTestCase {
    /// Every field of every stage survives: statuses, causes, errors, demand, links,
    /// owners, contracts, recent requests.
    func testEveryStageFieldSurvivesTheWire() {
        var b = BatchBuilder()
        BatchFixtures.filterMapSubject(into: &b)
        b.subscribe(10, op: "AnyPublisher", subscriber: "Sink")
        b.subscribe(11, parent: 10, op: "Just", subscriber: "AnyPublisher")
        b.forward(10, to: 11)
        b.add(.owned, 10) { $0.other = 7; $0.text = "ViewModel" }
        b.add(.contractBroken, 11) { $0.text = "finished twice" }
        b.subscription(11)
        b.request(11, .count(2))
        b.demand(11, .count(1))
        b.value(11, "1")
        b.finish(11)
        b.add(.ownerReleased, 0) { $0.other = 7; $0.text = "ViewModel" }
        b.cancel(3, cause: .inspector)
        let graph = Graph.folding(BatchFixtures.realisticBatch(), b.build())
        var snapshot = graph.snapshot()
        snapshot.skippedEvents = 12

        var writer = WireStreamWriter(), reader = WireStreamReader()
        let back = try? reader.snapshot(ServerMessage.decode(payload: writer.message(snapshot).framed().dropFirst(4)).snapshot)
        XCTAssertEqual(back, snapshot)
        var loaded = Graph()
        loaded.load(back ?? GraphSnapshot())
        XCTAssertEqual(loaded, graph)
    }

    func testFailedStageWithEmptyErrorKeepsAnEmptyError() {
        var state = WireNodeState()
        state.info = BatchFixtures.info(id: 1, op: "TryMap", subscriber: "Sink").wire
        state.status = .failed
        var snapshot = WireSnapshot()
        snapshot.nodes = [state]
        var g = Graph()
        g.load(GraphSnapshot(wire: snapshot))
        XCTAssertEqual(g[1]?.error, "")
        XCTAssertEqual(g[1]?.status, .failed)
    }
}
