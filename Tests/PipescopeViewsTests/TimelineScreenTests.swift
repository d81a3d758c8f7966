import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
@testable import PipescopeViews
import TerminalKit
import XCTest

/// The timeline screen (`T`): the demo after two minutes, its lanes across the width,
/// live and with the cursor in the past, at 120x40 and 80x24.
final class TimelineScreenTests: XCTestCase {
    private func timeline() -> AppState {
        var state = DemoAfterTwoMinutesTests.demo()
        _ = reduce(&state, .action(.toggleTimeline))
        return state
    }

    func testTheTimelineScreen() {
        Golden.check(timeline(), "timeline-screen", width: 120, height: 40, theme: .plainUnicode, resized: true)
        Golden.check(timeline(), "timeline-screen", width: 80, height: 24, theme: .plainASCII, resized: true)
    }

    /// `←` twice from live, then `10←`: the cursor is in the past, the ruler gives clock
    /// times with `▼` over it, and the event log ends at its event.
    func testTheTimelineScreenWithTheCursorInThePast() {
        var state = timeline()
        _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
        for action: Action in [.collapse, .collapse, .digit(1), .digit(0), .collapse] { _ = reduce(&state, .action(action)) }
        XCTAssertNotNil(state.cursor.position)
        Golden.check(state, "timeline-screen-cursor", width: 120, height: 40, theme: .plainUnicode)
    }

    func testTTogglesAndEscComesBack() {
        var state = timeline()
        XCTAssertEqual(state.page, .timeline)
        XCTAssertEqual(state.focus, .timeline, "← → move the cursor at once")
        _ = reduce(&state, .action(.focusNext))
        XCTAssertEqual(state.focus, .events)
        _ = reduce(&state, .action(.focusNext))
        XCTAssertEqual(state.focus, .timeline, "Tab goes between the lanes and the log")
        _ = reduce(&state, .action(.toggleTimeline))
        XCTAssertEqual(state.page, .tree)
        _ = reduce(&state, .action(.toggleTimeline))
        _ = reduce(&state, .action(.dismiss))
        XCTAssertEqual(state.page, .tree, "Esc: back to the tree")
    }

    /// The names on the left and the lanes on the right are the same rows.
    func testNamesAndLanesAreTheSameRows() {
        var state = timeline()
        _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
        let lines = ViewFixtures.render(state, width: 120, height: 40, theme: .plainUnicode).lines()
        /// The lane of the row whose name contains `name`: the text between the names'
        /// border and the box's.
        func lane(_ name: String) -> String? {
            lines.first { $0.contains(name) }.map { $0.components(separatedBy: "│") }
                .flatMap { $0.count > 2 ? $0[2] : nil }
        }
        XCTAssertTrue(lane("● TimerPublisher")?.contains("•") == true, "the timer's values are on its own row")
        let futures = lane("✓ Future ×")
        XCTAssertTrue(futures?.contains("✓") == true, "the Futures' group lane shows its members ending: \(futures ?? "")")
        XCTAssertFalse(lane("● story: publisher")?.contains("•") ?? true, "a held stage's lane has no values")
    }

    /// A pipeline that ended before the window is not a row of blank lanes: each lane
    /// says when its stage ended; `=` (named in the title) then draws its life.
    func testALifeLeftOfTheWindowSaysWhenItEndedAndHowToSeeIt() {
        var state = AppState(targetName: "demo", pid: 1)
        _ = reduce(&state, .attached(process: "demo", pid: 1))
        var b = BatchBuilder(start: BatchBuilder.baseNanos, step: 1_000_000)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Just"])
        b.value(2)
        b.value(1)
        b.finish(2)
        b.finish(1)
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 40_000_000_000))
        _ = reduce(&state, ScreenView.resized(width: 80, height: 24))
        _ = reduce(&state, .action(.openPipeline))
        _ = reduce(&state, .action(.toggleTimeline))
        func lane(_ name: String, _ lines: [String]) -> String {
            lines.first { $0.contains(name) }.map { $0.components(separatedBy: "│") }.flatMap { $0.count > 2 ? $0[2] : nil } ?? ""
        }
        let before = ViewFixtures.render(state, width: 80, height: 24, theme: .plainUnicode).lines()
        XCTAssertEqual(lane("✓ Map", before).trimmingCharacters(in: .whitespaces),
                       "◂ ended 40 s ago", before.joined(separator: "\n"))
        XCTAssertTrue(before.contains { $0.contains("= fit") }, "the title names the key")
        XCTAssertTrue(lane("✓ Just", before).contains("◂ ended 40 s ago"), before.joined(separator: "\n"))
        _ = reduce(&state, .action(.fitTimeline))
        let fitted = ViewFixtures.render(state, width: 80, height: 24, theme: .plainUnicode).lines()
        XCTAssertFalse(lane("✓ Map", fitted).contains("ended"), fitted.joined(separator: "\n"))
        XCTAssertTrue(lane("✓ Map", fitted).contains("✓"), fitted.joined(separator: "\n"))
    }
}
