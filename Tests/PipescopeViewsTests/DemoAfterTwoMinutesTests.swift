import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// The demo after two minutes at 120x40, from the demo's own schedule and event shapes
/// (``DemoSchedule``), in a second rather than two minutes: its interesting pipelines
/// fit the tree pane, the FlatMap's finished inners are one row, and the warnings list
/// has one row per mistake and place, with a count. (`DemoTerminalTests` checks the same
/// grouping on the real demo in tmux, as soon as two inners have finished.)
final class DemoAfterTwoMinutesTests: XCTestCase {
    private enum DemoScheduleIDs {
        /// The requests pipeline's FlatMap (the ticker is 1…4).
        static let flatMap: NodeID = 5
    }

    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    static func demo(seconds: Int = 120, page: Page = .tree) -> AppState {
        var state = AppState(targetName: "pipescope-demo", pid: 4242)
        _ = reduce(&state, .attached(process: "pipescope-demo", pid: 4242))
        if page == .tree { _ = reduce(&state, .action(.toggleTable)) }
        _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos))
        for (batch, end) in DemoSchedule.batches(seconds: seconds) {
            _ = reduce(&state, .batch(batch))
            _ = reduce(&state, .tick(nanos: end))
        }
        return state
    }

    private func screen(_ state: AppState) -> [String] {
        ViewFixtures.render(state, width: 120, height: 40, theme: .plainUnicode).lines()
    }

    func testTheFlatMapsFinishedInnersAreOneRow() throws {
        let state = Self.demo()
        let graph = state.cursor.graph
        let inners = try XCTUnwrap(graph[DemoScheduleIDs.flatMap]).children.dropFirst()
        let finished = inners.filter { graph[$0]?.status == .finished }
        let waiting = inners.filter { graph[$0]?.status == .active }
        XCTAssertGreaterThan(finished.count, 20, "a minute of answers is kept (retention 60 s)")
        let under = state.tree.rows.filter { graph[$0.id]?.parent == DemoScheduleIDs.flatMap || $0.group?.id.parent == DemoScheduleIDs.flatMap }
        XCTAssertEqual(under.count, 2 + waiting.count, "the subject, one group, and each inner still waiting")
        let group = try XCTUnwrap(under.compactMap(\.group).first)
        XCTAssertEqual(group.members, Array(finished))
        XCTAssertTrue(screen(state).contains { $0.contains("▸ Future ×\(finished.count)") && $0.contains("✓ finished") })
    }

    func testWhatNeedsLookingAtIsOnTheFirstScreen() throws {
        let state = Self.demo()
        let page = state.tree.pageSize
        XCTAssertEqual(page, 19, "the tree pane's rows at 120x40")
        let firstScreen = state.tree.rows.prefix(page)
        // The FlatMap with its inners, and every stage with a warning, or its group's row.
        XCTAssertTrue(firstScreen.contains { $0.id == DemoScheduleIDs.flatMap })
        for lint in state.warnings.lints {
            let shown = firstScreen.contains { $0.id == lint.node && $0.isStage }
                || state.tree.groupOf[lint.node].map { group in firstScreen.contains { $0.group?.id == group } } == true
            XCTAssertTrue(shown, "\(lint.kind.rawValue) on #\(lint.node) is on the first screen")
        }
        // Every ended repetition is folded: no two ended siblings alike on separate rows.
        var seen = Set<String>()
        for row in state.tree.rows where row.isStage {
            guard let node = state.cursor.graph[row.id], let key = GroupKey.stage(node, ended: endedWithUpstream(row.id, state))
            else { continue }
            let place = "\(node.parent.map(String.init) ?? "top") \(node.ownerID ?? 0) \(key.parts)"
            XCTAssertTrue(seen.insert(place).inserted, "#\(row.id) has an ended sibling alike on another row")
        }
        XCTAssertLessThanOrEqual(state.tree.rows.count, 2 * page, "two minutes of the demo fit in two screens")
    }

    func testTheWarningsListHasOneRowPerMistakeAndPlace() throws {
        let state = Self.demo()
        let forgotten = state.cursor.graph.roots.filter { state.cursor.graph[$0]?.operatorName == "story: forgotten request" }
        XCTAssertGreaterThan(forgotten.count, 10)
        // One demand-violation: at IgnoresDemand, which sends past demand; not also at the
        // labelled stage below it, which only passes those values on.
        XCTAssertEqual(state.warnings.groups.map(\.kind), [.unretainedCancellable, .demandViolation, .stalled,
                                                      .contractViolation], "newest first")
        // Two pipelines wait: the story that ignores demand is held by its DemandCounter
        // (on its root, #17), and the cache lookup waits on its subject (#16). Only the
        // first is stuck: a subject nobody sends to waits for the program's input.
        XCTAssertEqual(state.warnings.groups.filter { $0.kind == .stalled }.map(\.newest.node), [17])
        XCTAssertEqual(state.warnings.waits.pipeline(17)?.reason, .demand)
        XCTAssertEqual(state.warnings.waits.pipeline(15)?.reason, .upstream)
        XCTAssertEqual(state.warnings.waits.holders, [16, 17])
        let unretained = try XCTUnwrap(state.warnings.groups.first)
        XCTAssertEqual(unretained.count, forgotten.count, "every forgotten request, on one row")
        XCTAssertEqual(unretained.newest.node, forgotten.max())
        var warnings = state
        _ = reduce(&warnings, .action(.toggleLints))
        XCTAssertTrue(screen(warnings).contains {
            $0.contains("⚠ unretained-cancellable ×\(forgotten.count) at story: forgotten request → Sink, newest #\(forgotten.max()!)")
        })
    }

    private func endedWithUpstream(_ id: NodeID, _ state: AppState) -> Bool {
        var stack = [id]
        while let next = stack.popLast() {
            guard let node = state.cursor.graph[next] else { continue }
            if !node.status.isTerminal { return false }
            stack += node.children
        }
        return true
    }

    func testTheScreenAfterTwoMinutes() {
        let state = Self.demo()
        // The FlatMap's 29 answered Futures on one row, the stories' warnings, and every
        // ended repetition folded: the live upload, search and parser are just below.
        Golden.assertMatches(ViewFixtures.render(state, width: 120, height: 40, theme: .plainUnicode),
                             "demo-two-minutes-120x40-unicode")
        var warnings = state
        _ = reduce(&warnings, .action(.toggleLints))
        Golden.assertMatches(ViewFixtures.render(warnings, width: 120, height: 40, theme: .plainUnicode),
                             "demo-two-minutes-warnings-120x40-unicode")
    }
}

/// The warnings list scrolls by row when its rows do not all fit, and says which it shows.
final class WarningsScrollTests: XCTestCase {
    /// Twelve screens, each forgetting its request in its own pipeline: twelve rows.
    private func twelveMistakes(named name: String = "") -> AppState {
        var b = BatchBuilder()
        for i in 0..<12 {
            let id = NodeID(100 + i * 10)
            b.subscribe(id, op: "screen \(i)\(name)", type: "Map<Future<String, Never>, String>", subscriber: "Sink")
            b.subscribe(id + 1, parent: id, op: "Future", type: BatchBuilder.futureType, subscriber: "screen \(i)")
            b.subscription(id + 1)
            b.subscription(id)
            b.request(id, .unlimited)
            b.cancel(id, cause: .owner)
            b.cancel(id + 1)
        }
        var state = AppState(targetName: "app", pid: 1)
        _ = reduce(&state, .attached(process: "app", pid: 1))
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 1_000_000_000))
        _ = reduce(&state, ScreenView.resized(width: 80, height: 24))
        _ = reduce(&state, .action(.toggleLints))
        return state
    }

    func testTheWarningsScrollWhenTheyDoNotFit() {
        var state = twelveMistakes()
        XCTAssertEqual(state.warnings.groups.count, 12)
        func screen() -> [String] { ViewFixtures.render(state, width: 80, height: 24, theme: .plainUnicode).lines() }
        let first = screen()
        XCTAssertTrue(first.contains { $0.contains("⚠ unretained-cancellable at #210 screen 11") }, first.joined(separator: "\n"))
        XCTAssertFalse(first.contains { $0.contains("screen 0 →") }, "the oldest row does not fit at first")
        // The footer is whole at 80 columns: which rows, the keys, and how to turn a lint off.
        XCTAssertTrue(first.contains { $0.contains("rows 1-")
                          && $0.contains("/12 ↑↓ PgUp PgDn · w/Esc closes · -A <name> turns a lint off") },
                      first.joined(separator: "\n"))
        _ = reduce(&state, .action(.end))
        let last = screen()
        XCTAssertTrue(last.contains { $0.contains("⚠ unretained-cancellable at #100 screen 0") }, last.joined(separator: "\n"))
        XCTAssertTrue(last.contains { $0.contains("rows 12-12/12") }, last.joined(separator: "\n"))
        _ = reduce(&state, .action(.moveDown))   // past the last row: stays
        XCTAssertEqual(screen(), last)
        _ = reduce(&state, .action(.moveUp))
        XCTAssertTrue(screen().contains { $0.contains("rows 11-12/12") }, screen().joined(separator: "\n"))
        _ = reduce(&state, .action(.pageUp))
        XCTAssertFalse(screen().contains { $0.contains("rows 11-") }, "a page goes back more than one row")
        _ = reduce(&state, .action(.home))
        XCTAssertEqual(screen(), first)
        guard case .warnings = state.layer else { return XCTFail("the keys scroll; they do not close the warnings") }
        // Narrower than the box's 78 columns, the footer keeps its keys whole and leaves
        // the lint hint out, rather than cut a word.
        let narrow = ViewFixtures.render(state, width: 60, height: 24, theme: .plainUnicode).lines()
        XCTAssertTrue(narrow.contains { $0.contains("/12 ↑↓ PgUp PgDn · w/Esc closes ") }, narrow.joined(separator: "\n"))
    }

    /// Rows are shown whole, however many lines they take (here a heading of two: the
    /// pipelines have long names), and paging down through the list shows every one of
    /// them: a page never skips a row.
    func testPagingDownShowsEveryRowWhole() {
        var state = twelveMistakes(named: ", the settings panel's profile picture loader")
        func screen() -> [String] { ViewFixtures.render(state, width: 80, height: 24, theme: .plainUnicode).lines() }
        var seen = Set<Int>()
        for _ in 0..<12 {
            let lines = screen()
            for i in 0..<12 where lines.contains(where: { $0.contains("⚠ unretained-cancellable at #\(100 + i * 10) screen \(i),") }) {
                seen.insert(i)
                // The advice ends its sentence on screen: nothing is cut.
                XCTAssertTrue(lines.contains { $0.contains("for as long as you need the values.") }, lines.joined(separator: "\n"))
            }
            if lines.contains(where: { $0.contains("-12/12") }) { break }
            _ = reduce(&state, .action(.pageDown))
        }
        XCTAssertEqual(seen, Set(0..<12), "rows never shown while paging: \(Set(0..<12).subtracting(seen).sorted())")
    }

    /// The room below the last whole row is not left blank while rows remain: the next row
    /// is drawn as far as it fits, and is not counted as shown, so a page down starts
    /// with it whole.
    func testARowThatDoesNotFitIsBegunAndThePageStartsWithIt() throws {
        var state = twelveMistakes(named: ", the settings panel's profile picture loader")
        func screen() -> [String] { ViewFixtures.render(state, width: 80, height: 24, theme: .plainUnicode).lines() }
        let lines = screen()
        let footer = try XCTUnwrap(lines.first { $0.contains("rows 1-") }, lines.joined(separator: "\n"))
        let range = try XCTUnwrap(footer.range(of: #"rows 1-[0-9]+/"#, options: .regularExpression))
        let shown = try XCTUnwrap(Int(footer[range].dropFirst("rows 1-".count).dropLast()))
        XCTAssertLessThan(shown, 12)
        // Rows are newest first: the one after the last whole row is screen 11 - shown.
        let next = "⚠ unretained-cancellable at #\(100 + (11 - shown) * 10) screen \(11 - shown),"
        XCTAssertTrue(lines.contains { $0.contains(next) }, "begun:\n" + lines.joined(separator: "\n"))
        _ = reduce(&state, .action(.pageDown))
        let page = screen()
        let pageFooter = try XCTUnwrap(page.first { $0.contains("rows ") }, page.joined(separator: "\n"))
        let pageRange = try XCTUnwrap(pageFooter.range(of: #"rows [0-9]+-"#, options: .regularExpression))
        let pageFirst = try XCTUnwrap(Int(pageFooter[pageRange].dropFirst("rows ".count).dropLast()))
        XCTAssertLessThanOrEqual(pageFirst, shown + 1, "the page does not start past the row that was cut")
        XCTAssertGreaterThan(pageFirst, 1)
        XCTAssertTrue(page.contains { $0.contains(next) }, page.joined(separator: "\n"))
    }

    /// Rows of different heights (the demo's four mistakes at 50x22: the stalled one's
    /// advice takes eight lines, the others five or six): each page down starts with the
    /// first row the last page did not show whole, measured as the app measures it after
    /// each key (`ScreenView.warningsShown`); a fixed number of rows a page skipped the
    /// stalled one (#43, seen in tmux at 80x24 on the live demo).
    func testPagingDownThroughRowsOfDifferentHeightsSkipsNone() throws {
        var state = DemoAfterTwoMinutesTests.demo()
        _ = reduce(&state, ScreenView.resized(width: 50, height: 22))
        _ = reduce(&state, .action(.toggleLints))
        XCTAssertEqual(state.warnings.groups.count, 4)
        var covered: [ClosedRange<Int>] = []
        for _ in 0..<8 {
            if let rows = ScreenView.warningsShown(state, theme: .plainUnicode) { _ = reduce(&state, .warningsShown(rows)) }
            let lines = ViewFixtures.render(state, width: 50, height: 22, theme: .plainUnicode).lines()
            let footer = try XCTUnwrap(lines.lazy.compactMap { $0.firstMatch(of: #/rows ([0-9]+)-([0-9]+)\/4/#) }.first,
                                       lines.joined(separator: "\n"))
            covered.append(try XCTUnwrap(Int(footer.1))...(try XCTUnwrap(Int(footer.2))))
            if footer.2 == "4" { break }
            _ = reduce(&state, .action(.pageDown))
        }
        XCTAssertGreaterThan(covered.count, 1, "the rows take more than one page: \(covered)")
        XCTAssertEqual(covered.first?.lowerBound, 1)
        XCTAssertEqual(covered.last?.upperBound, 4)
        for (page, next) in zip(covered, covered.dropFirst()) {
            XCTAssertEqual(next.lowerBound, page.upperBound + 1, "no row skipped between pages: \(covered)")
        }
    }
}
