// Golden-screen tests for ScreenView.
//
// Each test renders a fixed AppState into a ScreenBuffer and compares buffer.lines() with
// a text file in Tests/PipescopeViewsTests/Golden/<name>.txt (found via #filePath).
//
// To re-record the golden files after an intended change to the screens, run:
//
//   PIPESCOPE_RECORD_GOLDEN=1 swift test --filter PipescopeViewsTests
//
// then read the diff of Golden/ before committing it. In record mode these tests write
// the files and pass without comparing.
//
// Times are shown in local time, so setUp pins TZ=UTC.

import Foundation
import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

final class ScreenViewGoldenTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    private func check(_ state: AppState, _ name: String, width: Int, height: Int, theme: Theme,
                       file: StaticString = #filePath, line: UInt = #line) {
        Golden.check(state, name, width: width, height: height, theme: theme, file: file, line: line)
    }

    // MARK: - Empty

    func testEmpty() {
        check(ViewFixtures.empty(), "empty", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.empty(), "empty", width: 80, height: 24, theme: .plainASCII)
    }

    func testConnecting() {
        check(AppState(targetName: "demo"), "connecting", width: 80, height: 24, theme: .plainUnicode)
    }

    // MARK: - A realistic tree

    func testRealisticUnicode() {
        check(ViewFixtures.realistic(), "realistic", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.realistic(), "realistic", width: 80, height: 24, theme: .plainUnicode)
    }

    func testRealisticAt200x60() {
        check(ViewFixtures.realistic(), "realistic", width: 200, height: 60, theme: .plainUnicode)
        check(ViewFixtures.realistic(), "realistic", width: 200, height: 60, theme: .plainASCII)
    }

    func testAFilterIsActive() {
        var state = ViewFixtures.realistic()
        _ = reduce(&state, .action(.startFilter))
        for c in "Timer" { _ = reduce(&state, .action(.filterType(c))) }
        check(state, "filter-typing", width: 80, height: 24, theme: .plainUnicode)
        _ = reduce(&state, .action(.filterAccept))
        check(state, "filter-active", width: 120, height: 40, theme: .plainUnicode)
    }

    func testRealisticASCII() {
        check(ViewFixtures.realistic(), "realistic", width: 120, height: 40, theme: .plainASCII)
        check(ViewFixtures.realistic(), "realistic", width: 80, height: 24, theme: .plainASCII)
    }

    func testEveryStatusAndLargeCounts() {
        check(ViewFixtures.statuses(), "statuses", width: 80, height: 24, theme: .plainUnicode)
        check(ViewFixtures.statuses(), "statuses", width: 120, height: 40, theme: .plainASCII)
    }

    // MARK: - Ended siblings grouped

    func testGroupedTree() {
        check(ViewFixtures.grouped(), "grouped", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.grouped(), "grouped", width: 80, height: 24, theme: .plainASCII)
    }

    func testWarningsGroupedByMistakeAndPlace() {
        check(ViewFixtures.groupedWarnings(), "warnings-grouped", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.groupedWarnings(), "warnings-grouped", width: 80, height: 24, theme: .plainASCII)
    }

    func testEndedStagesHidden() {
        check(ViewFixtures.endedHidden(), "ended-hidden", width: 80, height: 24, theme: .plainUnicode)
    }

    // MARK: - Deep tree

    func testDeepTree() {
        check(ViewFixtures.deep(), "deep", width: 80, height: 24, theme: .plainUnicode)
        check(ViewFixtures.deep(), "deep", width: 120, height: 40, theme: .plainASCII)
    }

    func testDeepTreeScrolledToSelection() {
        // 20 stages in a 24-line terminal: the tree scrolls to keep the last one in view.
        check(ViewFixtures.deep(depth: 20), "deep20-scrolled", width: 80, height: 24, theme: .plainUnicode)
    }

    // MARK: - Detail pane

    func testLongLastValueIsTruncated() {
        check(ViewFixtures.longLastValue(), "long-value", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.longLastValue(), "long-value", width: 80, height: 24, theme: .plainASCII)
    }

    func testFailedNodeSelected() {
        check(ViewFixtures.failedSelected(), "failed-selected", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.failedSelected(), "failed-selected", width: 80, height: 24, theme: .plainASCII)
    }

    // MARK: - Overlays and states

    func testHelpOverlay() {
        check(ViewFixtures.help(), "help", width: 120, height: 40, theme: .plainUnicode)
        check(ViewFixtures.help(), "help", width: 80, height: 24, theme: .plainASCII)
    }

    func testHelpOverlayAtTheSmallestSize() {
        check(ViewFixtures.help(), "help-minimum", width: ScreenView.minimumWidth, height: ScreenView.minimumHeight,
              theme: .plainUnicode)
    }

    func testDisconnected() {
        check(ViewFixtures.disconnected(), "disconnected", width: 80, height: 24, theme: .plainUnicode)
        check(ViewFixtures.disconnected(), "disconnected", width: 120, height: 40, theme: .plainASCII)
    }

    func testTooSmall() {
        check(ViewFixtures.realistic(), "too-small", width: 40, height: 10, theme: .plainUnicode)
        check(ViewFixtures.realistic(), "too-small", width: 40, height: 10, theme: .plainASCII)
    }

    func testSmallestSupportedSize() {
        check(ViewFixtures.realistic(), "minimum", width: ScreenView.minimumWidth, height: ScreenView.minimumHeight,
              theme: .plainUnicode)
    }
}
