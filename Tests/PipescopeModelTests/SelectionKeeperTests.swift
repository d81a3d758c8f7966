import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// The selection is a stage, not a row: it stays on its stage while rows move, and when
/// the stage goes away it moves somewhere near, never silently to the top, and the
/// status line says what happened.
final class SelectionKeeperTests: XCTestCase {
    private let second = ModelFixtures.second

    /// Five one-stage pipelines: Timer #1 (live), Just #2, Empty #3, Sequence #4 (finished
    /// at t0; different operators, so they are not grouped), Timer #5 (live).
    private func fivePipelines() -> AppState {
        var b = BatchBuilder(start: ModelFixtures.t0, step: 0)
        b.subscribe(1, op: "Timer", subscriber: "Sink")
        for (id, op) in [(NodeID(2), "Just"), (3, "Empty"), (4, "Sequence")] {
            b.subscribe(id, op: op, subscriber: "Sink")
            b.finish(id)
        }
        b.subscribe(5, op: "Timer", subscriber: "Sink")
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .attached(process: "demo", pid: 1))
        _ = reduce(&state, .action(.toggleTable))  // the tree's selection
        _ = reduce(&state, .batch(b.build()))
        return state
    }

    func testTheSelectionStaysOnItsStageWhileRowsMove() {
        var state = fivePipelines()
        state.tree.selection = 5
        XCTAssertEqual(state.tree.currentIndex, 4)
        // Pipelines above it are pruned and new ones arrive below: its row moves, it stays.
        _ = reduce(&state, .tick(nanos: ModelFixtures.t0 + 61 * second))
        var more = BatchBuilder(start: ModelFixtures.t0 + 61 * second, step: 0)
        more.subscribe(6, op: "Timer", subscriber: "Sink")
        _ = reduce(&state, .batch(more.build()))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 5, 6])
        XCTAssertEqual(state.tree.selection, 5)
        XCTAssertEqual(state.tree.currentIndex, 1)
        XCTAssertNil(state.session.notice, "nothing happened to the selected stage")
    }

    func testAPrunedPipelineHandsTheSelectionToTheRowNowInItsPlace() {
        var state = fivePipelines()
        state.tree.selection = 3
        _ = reduce(&state, .tick(nanos: ModelFixtures.t0 + 61 * second))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 5])
        XCTAssertEqual(state.tree.selection, 5, "the row nearest its old place (the third), not the first")
        XCTAssertEqual(state.session.notice?.text, "#3 Empty ended and was pruned: selected #5 Timer")
    }

    func testHidingEndedPipelinesSaysWhereTheSelectionWent() {
        var state = fivePipelines()
        state.tree.selection = 4
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 5])
        XCTAssertEqual(state.tree.selection, 5)
        XCTAssertEqual(state.session.notice?.text,
                       "3 ended stages hidden: whole pipelines and ended inner stages (x shows them); #4 Sequence: selected #5 Timer")
    }

    func testTheLastRowGoingAwaySelectsTheOneAboveIt() {
        var b = BatchBuilder(start: ModelFixtures.t0, step: 0)
        b.subscribe(1, op: "Timer", subscriber: "Sink")
        b.subscribe(2, op: "Just", subscriber: "Sink")
        b.finish(2)
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // the tree's selection
        _ = reduce(&state, .batch(b.build()))
        state.tree.selection = 2
        _ = reduce(&state, .tick(nanos: ModelFixtures.t0 + 61 * second))
        XCTAssertEqual(state.selectedNode?.id, 1)
        XCTAssertEqual(state.session.notice?.text, "#2 Just ended and was pruned: selected #1 Timer")
    }

    func testWhatIsLeftOfItsPipelineComesBeforeOtherRows() {
        // Timer #1; FlatMap #2 ← Subject #3 with an inner Just #4 (finished); Timer #5.
        var b = BatchBuilder(start: ModelFixtures.t0, step: 0)
        b.subscribe(1, op: "Timer", subscriber: "Sink")
        b.chain(from: 2, subscriber: "Sink", ops: ["FlatMap", "PassthroughSubject"])
        b.subscribe(4, parent: 2, op: "Just", subscriber: "FlatMap")
        b.finish(4)
        b.subscribe(5, op: "Timer", subscriber: "Sink")
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // the tree's selection
        _ = reduce(&state, .batch(b.build()))
        state.tree.selection = 4
        _ = reduce(&state, .tick(nanos: ModelFixtures.t0 + 61 * second))
        XCTAssertEqual(state.tree.selection, 2, "its downstream FlatMap, in the same pipeline")
    }

    func testFilteringTheStageOutSelectsTheFirstMatch() {
        var state = fivePipelines()
        state.tree.selection = 3
        _ = reduce(&state, .action(.startFilter))
        for c in "Timer" { _ = reduce(&state, .action(.filterType(c))) }
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 5])
        XCTAssertEqual(state.tree.selection, 1, "typing a filter selects its first match")
    }

    /// Hiding ended pipelines removes rows above the selection too: the selection goes
    /// to the row that was next to it, not to whatever row now has its old number.
    func testWhenRowsAroundItGoTooItsNearestSurvivingNeighbourIsSelected() {
        var b = BatchBuilder(start: ModelFixtures.t0, step: 0)
        for (id, op) in [(NodeID(1), "Just"), (2, "Empty"), (3, "Sequence")] {
            b.subscribe(id, op: op, subscriber: "Sink")
            b.finish(id)
        }
        b.subscribe(4, op: "Timer", subscriber: "Sink")
        b.subscribe(5, op: "Record", subscriber: "Sink")
        b.finish(5)
        b.subscribe(6, op: "Deferred", subscriber: "Sink")
        b.subscribe(7, op: "Future", subscriber: "Sink")
        var state = AppState(targetName: "demo")
        _ = reduce(&state, .action(.toggleTable))  // the tree's selection
        _ = reduce(&state, .batch(b.build()))
        state.tree.selection = 5
        XCTAssertEqual(state.tree.currentIndex, 4)
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.tree.rows.map(\.id), [4, 6, 7])
        XCTAssertEqual(state.tree.selection, 6, "the row below it, not #7 now at its old place")
        XCTAssertTrue(state.session.notice?.text.hasSuffix("#5 Record: selected #6 Deferred") == true,
                      state.session.notice?.text ?? "no notice")
    }
}
