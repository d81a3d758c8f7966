import TerminalKit
import XCTest

final class ScreenBufferDiffTests: XCTestCase {
    func testNoPreviousFrameGivesEveryCell() {
        var buffer = ScreenBuffer(width: 4, height: 2)
        buffer.put("ab", x: 1, y: 0, style: Style(bold: true))
        XCTAssertEqual(buffer.diff(from: nil), [
            CellRun(x: 0, y: 0, style: .plain, text: " "),
            CellRun(x: 1, y: 0, style: Style(bold: true), text: "ab"),
            CellRun(x: 3, y: 0, style: .plain, text: " "),
            CellRun(x: 0, y: 1, style: .plain, text: "    "),
        ])
    }

    func testDifferentSizeGivesEveryCell() {
        let small = ScreenBuffer(width: 2, height: 1)
        let large = ScreenBuffer(width: 3, height: 1)
        XCTAssertEqual(large.diff(from: small), [CellRun(x: 0, y: 0, style: .plain, text: "   ")])
    }

    func testIdenticalFramesHaveNoDiff() {
        var buffer = ScreenBuffer(width: 10, height: 3)
        buffer.put("日本 and text", x: 0, y: 1)
        XCTAssertEqual(buffer.diff(from: buffer), [])
    }

    func testChangedCellsAreGroupedIntoRuns() {
        let before = ScreenBuffer(width: 10, height: 2)
        var after = before
        after.put("abc", x: 1, y: 0)
        after.put("x", x: 6, y: 0)
        after.put("yz", x: 8, y: 1)
        XCTAssertEqual(after.diff(from: before), [
            CellRun(x: 1, y: 0, style: .plain, text: "abc"),
            CellRun(x: 6, y: 0, style: .plain, text: "x"),
            CellRun(x: 8, y: 1, style: .plain, text: "yz"),
        ])
    }

    func testRunsSplitWhenStyleChanges() {
        let before = ScreenBuffer(width: 6, height: 1)
        var after = before
        after.put("ab", x: 0, y: 0)
        after.put("cd", x: 2, y: 0, style: Style(foreground: .red))
        XCTAssertEqual(after.diff(from: before), [
            CellRun(x: 0, y: 0, style: .plain, text: "ab"),
            CellRun(x: 2, y: 0, style: Style(foreground: .red), text: "cd"),
        ])
    }

    func testStyleOnlyChangeIsADiff() {
        var before = ScreenBuffer(width: 4, height: 1)
        before.put("abcd", x: 0, y: 0)
        var after = before
        after.setStyle(Rect(x: 1, y: 0, width: 2, height: 1)) { $0.reverse = true }
        XCTAssertEqual(after.diff(from: before), [CellRun(x: 1, y: 0, style: Style(reverse: true), text: "bc")])
    }

    func testRunsDoNotSpanLines() {
        let before = ScreenBuffer(width: 2, height: 2)
        var after = before
        after.fill(after.bounds, with: Cell("x"))
        XCTAssertEqual(after.diff(from: before), [
            CellRun(x: 0, y: 0, style: .plain, text: "xx"),
            CellRun(x: 0, y: 1, style: .plain, text: "xx"),
        ])
    }

    func testWideCharacterRunsCoverBothColumns() {
        let before = ScreenBuffer(width: 6, height: 1)
        var after = before
        after.put("a日b", x: 0, y: 0)
        let runs = after.diff(from: before)
        XCTAssertEqual(runs, [CellRun(x: 0, y: 0, style: .plain, text: "a日b")])
        XCTAssertEqual(runs[0].text.terminalWidth, 4)
    }

    func testReplacingAWideCharacterRedrawsItWhole() {
        var before = ScreenBuffer(width: 6, height: 1)
        before.put("日本", x: 0, y: 0)
        var after = before
        after.put("語", x: 2, y: 0)
        XCTAssertEqual(after.diff(from: before), [CellRun(x: 2, y: 0, style: .plain, text: "語")])
    }

    func testOverwritingRightHalfRedrawsBothHalves() {
        var before = ScreenBuffer(width: 4, height: 1)
        before.put("日", x: 0, y: 0)
        var after = before
        after.put("a", x: 1, y: 0)
        XCTAssertEqual(after.diff(from: before), [CellRun(x: 0, y: 0, style: .plain, text: " a")])
    }

    func testStraySubscriptContinuationDrawsAsSpace() {
        let before = ScreenBuffer(width: 3, height: 1)
        var after = before
        after[1, 0] = .continuation
        XCTAssertEqual(after.diff(from: before), [CellRun(x: 1, y: 0, style: .plain, text: " ")])
        XCTAssertEqual(after.lines(), [""])
    }
}
