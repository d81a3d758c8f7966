import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

final class TreeRowsTests: XCTestCase {
    /// Roots 1 and 10 (created in that order); 1 has children 3 then 2 (subscribe order,
    /// not id order); 3 has child 4.
    private func graph() -> Graph {
        var b = BatchBuilder()
        b.subscribe(1, op: "Zip", subscriber: "Sink")
        b.subscribe(3, parent: 1, op: "B", subscriber: "Zip")
        b.subscribe(4, parent: 3, op: "C", subscriber: "B")
        b.subscribe(2, parent: 1, op: "A", subscriber: "Zip")
        b.subscribe(10, op: "Just", subscriber: "Sink")
        b.subscribe(11, parent: 10, op: "Empty", subscriber: "Just")
        return Graph.folding(b.build())
    }

    func testDepthFirstRootsByCreationChildrenBySubscribeOrder() {
        let rows = graph().rows(collapsed: [])
        XCTAssertEqual(rows.map(\.id), [1, 3, 4, 2, 10, 11])
        XCTAssertEqual(rows.map(\.depth), [0, 1, 2, 1, 0, 1])
        XCTAssertEqual(rows.map(\.hasChildren), [true, true, false, false, true, false])
        XCTAssertTrue(rows.allSatisfy { !$0.isCollapsed })
    }

    func testCollapsedSkipsTheInsides() {
        let rows = graph().rows(collapsed: [3, 10])
        XCTAssertEqual(rows.map(\.id), [1, 3, 2, 10])
        XCTAssertEqual(rows.map(\.isCollapsed), [false, true, false, true])
        XCTAssertEqual(graph().rows(collapsed: [1]).map(\.id), [1, 10, 11])
    }

    func testCollapsedUnknownIdsAreHarmless() {
        XCTAssertEqual(graph().rows(collapsed: [99]).map(\.id), [1, 3, 4, 2, 10, 11])
    }

    func testEmptyGraphHasNoRows() {
        XCTAssertEqual(Graph().rows(collapsed: []), [])
    }

    func testDeepChain() {
        let rows = Graph.folding(BatchFixtures.deepChain(depth: 12)).rows(collapsed: [])
        XCTAssertEqual(rows.map(\.depth), Array(0..<12))
        XCTAssertEqual(rows.last?.hasChildren, false)
    }
}
