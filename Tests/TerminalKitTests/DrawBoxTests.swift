import TerminalKit
import XCTest

final class DrawBoxTests: XCTestCase {
    func testUnicodeBoxWithTitle() {
        var buffer = ScreenBuffer(width: 14, height: 4)
        buffer.drawBox(buffer.bounds, title: "Pipes", style: .plain, titleStyle: Style(bold: true), glyphs: .unicode)
        XCTAssertEqual(buffer.lines(), [
            "┌ Pipes ─────┐",
            "│            │",
            "│            │",
            "└────────────┘",
        ])
        XCTAssertEqual(buffer[2, 0].style, Style(bold: true))
        XCTAssertEqual(buffer[0, 0].style, .plain)
    }

    func testAsciiBoxInsideBuffer() {
        var buffer = ScreenBuffer(width: 8, height: 5)
        buffer.drawBox(Rect(x: 1, y: 1, width: 5, height: 3), title: nil, style: .plain, titleStyle: .plain, glyphs: .ascii)
        XCTAssertEqual(buffer.lines(), ["", " +---+", " |   |", " +---+", ""])
    }

    func testLongTitleIsTruncated() {
        var buffer = ScreenBuffer(width: 10, height: 2)
        buffer.drawBox(buffer.bounds, title: "Pipelines and more", style: .plain, titleStyle: .plain, glyphs: .unicode)
        XCTAssertEqual(buffer.lines()[0], "┌ Pipeli…┐")
    }

    func testBoxLeavesInsideAlone() {
        var buffer = ScreenBuffer(width: 5, height: 3)
        buffer.fill(buffer.bounds, with: Cell("x"))
        buffer.drawBox(buffer.bounds, title: nil, style: .plain, titleStyle: .plain, glyphs: .ascii)
        XCTAssertEqual(buffer.lines(), ["+---+", "|xxx|", "+---+"])
    }

    func testDegenerateBoxes() {
        var buffer = ScreenBuffer(width: 4, height: 3)
        buffer.drawBox(Rect(x: 0, y: 0, width: 4, height: 1), title: "T", style: .plain, titleStyle: .plain, glyphs: .ascii)
        buffer.drawBox(Rect(x: 0, y: 1, width: 0, height: 2), title: "T", style: .plain, titleStyle: .plain, glyphs: .ascii)
        XCTAssertEqual(buffer.lines(), ["----", "", ""])
    }
}
