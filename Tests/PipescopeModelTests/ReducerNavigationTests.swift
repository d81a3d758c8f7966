import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Keys, as actions: moving, folding, help and quitting.
final class ReducerNavigationTests: XCTestCase {
    private func send(_ state: inout AppState, _ actions: Action...) -> [Effect] {
        actions.flatMap { reduce(&state, .action($0)) }
    }

    func testNothingSelectedMeansTheFirstRow() {
        let state = ModelFixtures.realistic()
        XCTAssertNil(state.tree.selection)
        XCTAssertEqual(state.selectedNode?.id, 1)
    }

    func testMoveDownAndUpClamp() {
        var state = ModelFixtures.realistic()
        _ = send(&state, .moveDown)
        XCTAssertEqual(state.tree.selection, 2)
        _ = send(&state, .moveDown, .moveDown, .moveDown, .moveDown, .moveDown)
        XCTAssertEqual(state.tree.selection, 7)
        _ = send(&state, .moveDown)
        XCTAssertEqual(state.tree.selection, 7, "moveDown stops at the last row")
        _ = send(&state, .moveUp)
        XCTAssertEqual(state.tree.selection, 6)
        _ = send(&state, .home, .moveUp)
        XCTAssertEqual(state.tree.selection, 1, "moveUp stops at the first row")
    }

    func testHomeEndAndPaging() {
        var state = ModelFixtures.realistic()
        _ = reduce(&state, .resize(width: 80, height: 24, treePageSize: 3))
        _ = send(&state, .end)
        XCTAssertEqual(state.tree.selection, 7)
        _ = send(&state, .home)
        XCTAssertEqual(state.tree.selection, 1)
        _ = send(&state, .pageDown)
        XCTAssertEqual(state.tree.selection, 4)
        _ = send(&state, .pageDown)
        XCTAssertEqual(state.tree.selection, 7, "pageDown clamps at the last row")
        _ = send(&state, .pageUp)
        XCTAssertEqual(state.tree.selection, 4)
        _ = send(&state, .pageUp, .pageUp)
        XCTAssertEqual(state.tree.selection, 1, "pageUp clamps at the first row")
    }

    func testMovesOnAnEmptyTreeDoNothing() {
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        for action: Action in [.moveUp, .moveDown, .pageUp, .pageDown, .home, .end, .collapse, .expand] {
            XCTAssertEqual(send(&state, action), [])
            XCTAssertNil(state.tree.selection)
        }
    }

    func testCollapseHidesChildren() {
        var state = ModelFixtures.realistic()
        _ = send(&state, .home, .collapse)
        XCTAssertEqual(state.tree.collapsed, [1])
        XCTAssertEqual(state.tree.selection, 1)
        XCTAssertEqual(ModelFixtures.visibleIDs(state), [1, 4, 5, 6, 7])
        XCTAssertEqual(state.tree.rows.first?.isCollapsed, true)
        _ = send(&state, .moveDown)
        XCTAssertEqual(state.tree.selection, 4, "moving skips the hidden stages")
    }

    func testCollapseOnALeafSelectsItsParent() {
        var state = ModelFixtures.realistic()
        state.tree.selection = 3
        _ = send(&state, .collapse)
        XCTAssertEqual(state.tree.selection, 2)
        XCTAssertEqual(state.tree.collapsed, [])
        _ = send(&state, .collapse)
        XCTAssertEqual(state.tree.collapsed, [2], "the parent has children, so it folds")
        _ = send(&state, .collapse)
        XCTAssertEqual(state.tree.selection, 1, "a folded stage goes to its downstream")
    }

    func testCollapseOnAFoldedRootStays() {
        var state = ModelFixtures.realistic()
        _ = send(&state, .home, .collapse, .collapse)
        XCTAssertEqual(state.tree.selection, 1)
        XCTAssertEqual(state.tree.collapsed, [1])
    }

    func testExpand() {
        var state = ModelFixtures.realistic()
        _ = send(&state, .home, .collapse)
        _ = send(&state, .expand)
        XCTAssertEqual(state.tree.collapsed, [])
        XCTAssertEqual(state.tree.selection, 1)
        _ = send(&state, .expand)
        XCTAssertEqual(state.tree.selection, 2, "expanding an open stage goes upstream")
        _ = send(&state, .expand, .expand)
        XCTAssertEqual(state.tree.selection, 3, "a leaf does not move")
    }

    func testSelectionHiddenByAFoldMovesToTheVisibleAncestor() {
        var state = ModelFixtures.realistic()
        state.tree.selection = 3
        state.tree.collapsed = [1, 2]
        _ = reduce(&state, .tick(nanos: ModelFixtures.t0))
        XCTAssertEqual(state.tree.selection, 1)
        XCTAssertNil(state.session.notice, "the user folded it: nothing to explain")
    }

    func testSelectionHiddenByAnInnerFold() {
        var state = ModelFixtures.realistic()
        state.tree.selection = 3
        state.tree.collapsed = [2]
        _ = reduce(&state, .resize(width: 100, height: 30, treePageSize: 20))
        XCTAssertEqual(state.tree.selection, 2)
    }

    /// A flatMap's inner pipeline ends and is pruned while selected: the selection goes to
    /// the flatMap, the nearest stage still there, not to the top of the screen.
    func testSelectionPrunedMovesToTheNearestAncestor() {
        var b = BatchBuilder(start: ModelFixtures.t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Timer"])
        b.chain(from: 3, subscriber: "Sink", ops: ["FlatMap", "PassthroughSubject"])
        b.subscribe(5, parent: 3, op: "Map", subscriber: "FlatMap")
        b.subscribe(6, parent: 5, op: "Just", subscriber: "Map")
        b.finish(6)
        b.finish(5)
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .batch(b.build()))
        state.tree.selection = 6
        _ = reduce(&state, .tick(nanos: ModelFixtures.t0 + 61 * ModelFixtures.second))
        XCTAssertNil(state.cursor.graph[6])
        XCTAssertEqual(state.selectedNode?.id, 3, "selection jumped to \(String(describing: state.selectedNode?.id))")
        XCTAssertEqual(state.session.notice?.text, "#6 Just ended and was pruned: selected #3 FlatMap")
    }

    func testQuit() {
        var state = ModelFixtures.realistic()
        XCTAssertEqual(send(&state, .quit), [.quit])
        XCTAssertEqual(send(&state, .moveDown), [])
    }

    func testHelpSwallowsMovementAndClosesWithEscOrQuestionMark() {
        var state = ModelFixtures.realistic()
        state.tree.selection = 2
        _ = send(&state, .toggleHelp)
        XCTAssertTrue(state.layer.isHelp)
        for action: Action in [.moveUp, .moveDown, .pageUp, .pageDown, .home, .end, .collapse, .expand] {
            XCTAssertEqual(send(&state, action), [])
        }
        XCTAssertEqual(state.tree.selection, 2)
        XCTAssertEqual(state.tree.collapsed, [])
        XCTAssertTrue(state.layer.isHelp)
        _ = send(&state, .dismiss)
        XCTAssertEqual(state.layer, .browsing, "Esc closes help")
        _ = send(&state, .toggleHelp, .toggleHelp)
        XCTAssertEqual(state.layer, .browsing, "? closes help")
        _ = send(&state, .dismiss)
        XCTAssertEqual(state.layer, .browsing, "Esc without help does nothing")
        _ = send(&state, .toggleHelp)
        XCTAssertEqual(send(&state, .quit), [.quit], "q quits even with help open")
    }
}
