import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

/// The timeline lanes line up with the tree, and the event log follows the cursor.
final class TimelineAndLogTests: XCTestCase {
    private func render(_ state: AppState, _ width: Int = 140, _ height: Int = 40) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: width, height: height)
        ScreenView.render(state, theme: .plainUnicode, into: &buffer)
        return buffer
    }

    func testEachStagesEventsAreOnItsOwnRow() {
        let lines = render(ViewFixtures.realistic()).lines()
        func lane(_ label: String) -> String {
            let line = lines.first { $0.contains(label) } ?? ""
            return line.components(separatedBy: "││").dropFirst().first ?? ""
        }
        XCTAssertTrue(lane("▾ TryMap → Sink").contains("✗"), "the failure is on TryMap's lane")
        XCTAssertTrue(lane("    TimerPublisher").contains("⌂"), "the cancel, by its owner, is on TimerPublisher's lane")
        XCTAssertFalse(lane("▾ Filter → Sink").contains("✗"))
    }

    func testInHistoryTheLogEndsAtTheCursorsEventHighlighted() {
        var state = ViewFixtures.realistic()
        _ = reduce(&state, .action(.history(-3)))
        let buffer = render(state)
        let lines = buffer.lines()
        XCTAssertTrue(lines[0].contains("HISTORY"), lines[0])
        let highlighted = (0..<buffer.height).filter { y in
            buffer[buffer.width - 3, y].style.reverse && lines[y].contains("12:00:00")
        }
        XCTAssertEqual(highlighted.count, 1, "exactly the cursor's event is highlighted in the log")
        let position = state.cursor.position ?? 0
        let event = state.cursor.log.event(at: position)
        XCTAssertNotNil(event)
        XCTAssertTrue(highlighted.first.map { lines[$0].contains("#\(event!.node) ") } == true)
    }

    func testSmallTerminalsKeepTheTreeAndDetailOnly() {
        let lines = render(ViewFixtures.realistic(), 100, 30).lines()
        XCTAssertFalse(lines.contains { $0.contains("Timeline") })
        XCTAssertTrue(lines.contains { $0.contains("Stage") })
    }
}
