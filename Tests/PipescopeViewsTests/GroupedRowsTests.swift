import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// Group rows on screen: one row however many members, selected like a stage, opened
/// with →, and marked when a member has a warning.
final class GroupedRowsTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    private func lines(_ state: AppState, _ width: Int = 120, _ height: Int = 40) -> [String] {
        ViewFixtures.render(state, width: width, height: height, theme: .plainUnicode).lines()
    }

    func testTenThousandFinishedInnersAreOneRowWithTheirTotal() throws {
        var b = BatchBuilder(step: 0)
        b.flatMapRoot(1)
        for id in 3...NodeID(10_002) { b.innerFuture(id, under: 1, answer: "ok") }
        // Kept whole: the default retention keeps 500 ended inners under one stage (below).
        var state = ViewFixtures.connected([b.build()], page: .tree,
                                           retention: Retention(seconds: 60, maxEndedPipelines: 500, maxEndedInner: 20_000))
        let screen = lines(state)
        let row = try XCTUnwrap(screen.first { $0.contains("Future ×10000") }, screen.joined(separator: "\n"))
        XCTAssertTrue(row.contains("✓ finished"), row)
        XCTAssertTrue(row.contains("10.0k"), "the values of all of them: \(row)")
        let treePane = screen.prefix(23).map { String($0.prefix(66)) }
        XCTAssertEqual(treePane.filter { $0.contains("Future") }.count, 1, "one row for 10,000 stages")
        // Drawing reads the totals the model derived when the rows changed, selected or not.
        state.tree.selected = state.tree.rows[2].selection
        XCTAssertTrue(lines(state).contains { $0.contains("Future ×10000: 10000 ended stages alike, under #1 FlatMap") })
    }

    /// With the default retention the inspector keeps the newest 500 ended inner stages
    /// under one stage, as the program does: the group counts what is kept, and its detail
    /// says that older ones went and which variable sets the cap.
    func testTheDefaultRetentionKeepsFiveHundredInnersAndTheGroupSaysSo() throws {
        var b = BatchBuilder(step: 0)
        b.flatMapRoot(1)
        for id in 3...NodeID(10_002) { b.innerFuture(id, under: 1, answer: "ok") }
        var state = ViewFixtures.connected(b.build())
        XCTAssertEqual(state.retention.maxEndedInner, 500)
        let screen = lines(state)
        XCTAssertTrue(screen.contains { $0.contains("Future ×500") }, screen.joined(separator: "\n"))
        XCTAssertEqual(state.cursor.liveGraph[1]?.children.count, 501, "500 ended inners and the upstream")
        state.tree.selected = state.tree.rows[2].selection
        let detail = lines(state)
        XCTAssertTrue(detail.contains { $0.contains("at most 500 ended stages are kept under #1; older ones") },
                      detail.joined(separator: "\n"))
        XCTAssertTrue(detail.contains { $0.contains("pruned (PIPESCOPE_RETAIN_INNER)") }, detail.joined(separator: "\n"))
    }

    func testTheSelectedGroupRowIsReversedAndTheDetailDescribesTheGroup() throws {
        let buffer = ViewFixtures.render(ViewFixtures.grouped(), width: 80, height: 24, theme: .plainUnicode)
        let screen = buffer.lines()
        let y = try XCTUnwrap(screen.firstIndex { $0.contains("▸ Future ×18") })
        XCTAssertTrue(buffer[1, y].style.reverse && buffer[78, y].style.reverse, "the group row is the selected row")
        XCTAssertTrue(screen.contains { $0.contains("Future ×18: 18 ended stages alike, under #10 FlatMap") })
        XCTAssertTrue(screen.contains { $0.contains("values 18 in all") })
        XCTAssertTrue(screen.contains { $0.contains("newest #29 finished") })
    }

    func testAClosedGroupWithAWarningIsMarked() throws {
        let screen = lines(ViewFixtures.grouped())
        let row = try XCTUnwrap(screen.first { $0.contains("story: forgotten") })
        XCTAssertTrue(row.contains("×3 ⚠"), row)
    }

    func testRightOpensTheGroupUnderItsRow() throws {
        var state = ViewFixtures.grouped()
        _ = reduce(&state, .action(.expand))
        let screen = lines(state)
        let top = try XCTUnwrap(screen.firstIndex { $0.contains("▾ Future ×18") })
        XCTAssertTrue(screen[top + 1].contains("      Future ") && screen[top + 1].contains("✓ finished"),
                      "the members follow, one level deeper:\n\(screen.joined(separator: "\n"))")
        XCTAssertTrue(screen.contains { $0.contains("Pipelines (39 stages)") })
    }

    func testCancellingAGroupSaysWhyNotOnTheBottomLine() {
        var state = ViewFixtures.grouped()
        _ = reduce(&state, .action(.cancelSelected))
        XCTAssertEqual(lines(state).last?.trimmingCharacters(in: .whitespaces),
                       "Future ×18 is a group of ended stages: nothing to cancel (→ opens it)"
                       + String(repeating: " ", count: 43) + "? help")
    }
}
