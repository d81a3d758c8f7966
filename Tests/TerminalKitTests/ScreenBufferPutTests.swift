import TerminalKit
import XCTest

final class ScreenBufferPutTests: XCTestCase {
    func testNewBufferIsBlank() {
        let buffer = ScreenBuffer(width: 3, height: 2)
        XCTAssertEqual(buffer.lines(), ["", ""])
        XCTAssertEqual(buffer[1, 1], .blank)
    }

    func testNegativeSizeIsEmpty() {
        let buffer = ScreenBuffer(width: -3, height: 2)
        XCTAssertEqual(buffer.width, 0)
        XCTAssertEqual(buffer.lines(), ["", ""])
    }

    func testPutWritesTextAndStyle() {
        var buffer = ScreenBuffer(width: 10, height: 2)
        let bold = Style(bold: true)
        XCTAssertEqual(buffer.put("hello", x: 2, y: 1, style: bold), 5)
        XCTAssertEqual(buffer.lines(), ["", "  hello"])
        XCTAssertEqual(buffer[2, 1], Cell("h", style: bold))
        XCTAssertEqual(buffer[7, 1], .blank)
    }

    func testPutClipsAtBufferEdge() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        XCTAssertEqual(buffer.put("abcdefgh", x: 3, y: 0), 3)
        XCTAssertEqual(buffer.lines(), ["   abc"])
    }

    func testPutClipsAtMaxWidth() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        XCTAssertEqual(buffer.put("abcdef", x: 1, y: 0, maxWidth: 3), 3)
        XCTAssertEqual(buffer.put("xyz", x: 8, y: 0, maxWidth: 0), 0)
        XCTAssertEqual(buffer.lines(), [" abc"])
    }

    func testPutOutsideBufferWritesNothing() {
        var buffer = ScreenBuffer(width: 4, height: 2)
        XCTAssertEqual(buffer.put("abc", x: 0, y: 2), 0)
        XCTAssertEqual(buffer.put("abc", x: 0, y: -1), 0)
        XCTAssertEqual(buffer.put("abc", x: 4, y: 0), 0)
        XCTAssertEqual(buffer.lines(), ["", ""])
    }

    func testPutWithNegativeXShowsTheVisiblePart() {
        var buffer = ScreenBuffer(width: 4, height: 1)
        XCTAssertEqual(buffer.put("abcdef", x: -2, y: 0), 4)
        XCTAssertEqual(buffer.lines(), ["cdef"])
    }

    func testSubscriptOutOfRangeIsIgnored() {
        var buffer = ScreenBuffer(width: 2, height: 2)
        buffer[5, 5] = Cell("x")
        buffer[-1, 0] = Cell("x")
        XCTAssertEqual(buffer[5, 5], .blank)
        XCTAssertEqual(buffer.lines(), ["", ""])
    }

    func testControlCharactersBecomePlaceholders() {
        var buffer = ScreenBuffer(width: 12, height: 1)
        XCTAssertEqual(buffer.put("a\nb\tc\r\nd\u{1B}e\u{7F}", x: 0, y: 0), 10)
        XCTAssertEqual(buffer.lines(), ["a?b c?d?e?"])
    }

    // MARK: - Wide and combining characters

    func testWideCharactersTakeTwoColumns() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        XCTAssertEqual(buffer.put("日本x", x: 0, y: 0), 5)
        XCTAssertEqual(buffer.lines(), ["日本x"])
        XCTAssertEqual(buffer[0, 0].character, "日")
        XCTAssertTrue(buffer[1, 0].isContinuation)
        XCTAssertEqual(buffer[4, 0].character, "x")
    }

    func testEmojiTakesTwoColumns() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        XCTAssertEqual(buffer.put("😀!", x: 1, y: 0), 3)
        XCTAssertTrue(buffer[2, 0].isContinuation)
        XCTAssertEqual(buffer[3, 0].character, "!")
    }

    func testWideCharacterThatDoesNotFitIsNotWritten() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        XCTAssertEqual(buffer.put("ab日", x: 0, y: 0, maxWidth: 3), 2)
        XCTAssertEqual(buffer.lines(), ["ab"])
        var edge = ScreenBuffer(width: 3, height: 1)
        XCTAssertEqual(edge.put("a日", x: 1, y: 0), 1)
        XCTAssertEqual(edge.lines(), [" a"])
        XCTAssertFalse(edge[2, 0].isContinuation)
    }

    func testWideCharacterCutByLeftEdgeLeavesBlank() {
        var buffer = ScreenBuffer(width: 4, height: 1)
        buffer.fill(buffer.bounds, with: Cell("."))
        XCTAssertEqual(buffer.put("日b", x: -1, y: 0), 2)
        XCTAssertEqual(buffer.lines(), [" b.."])
    }

    func testCombiningMarksAttachToThePreviousCharacter() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        XCTAssertEqual(buffer.put("e\u{301}x", x: 0, y: 0), 2)
        XCTAssertEqual(buffer[0, 0].character, "e\u{301}")
        XCTAssertEqual(buffer[1, 0].character, "x")
        // A mark at the start of the text has nothing to attach to and is dropped.
        XCTAssertEqual(buffer.put("\u{301}y", x: 3, y: 0), 1)
        XCTAssertEqual(buffer.lines(), ["éx y"])
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.put("日本", x: 0, y: 0)
        buffer.put("a", x: 1, y: 0)   // right half of 日
        XCTAssertEqual(buffer.lines(), [" a本"])
        buffer.put("b", x: 2, y: 0)   // left half of 本
        XCTAssertEqual(buffer.lines(), [" ab"])
        XCTAssertFalse(buffer[3, 0].isContinuation)
    }

    func testWideOverWideShiftedByOne() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.put("日本", x: 0, y: 0)
        buffer.put("語", x: 1, y: 0)
        XCTAssertEqual(buffer.lines(), [" 語"])
        XCTAssertTrue(buffer[2, 0].isContinuation)
        XCTAssertFalse(buffer[3, 0].isContinuation)
    }

    // MARK: - Truncation

    func testPutTruncatedFitsWithoutEllipsis() {
        var buffer = ScreenBuffer(width: 10, height: 1)
        XCTAssertEqual(buffer.putTruncated("Map", x: 0, y: 0, maxWidth: 3, glyphs: .unicode), 3)
        XCTAssertEqual(buffer.lines(), ["Map"])
    }

    func testPutTruncatedAddsEllipsis() {
        var buffer = ScreenBuffer(width: 20, height: 2)
        XCTAssertEqual(buffer.putTruncated("PassthroughSubject", x: 0, y: 0, maxWidth: 8, glyphs: .unicode), 8)
        XCTAssertEqual(buffer.putTruncated("PassthroughSubject", x: 0, y: 1, maxWidth: 8, glyphs: .ascii), 8)
        XCTAssertEqual(buffer.lines(), ["Passthr…", "Passthr~"])
    }

    func testPutTruncatedWithWideCharacters() {
        var buffer = ScreenBuffer(width: 20, height: 1)
        // 日 fits in 3 columns, 本 would not: the ellipsis follows directly.
        XCTAssertEqual(buffer.putTruncated("日本語", x: 0, y: 0, maxWidth: 4, glyphs: .unicode), 3)
        XCTAssertEqual(buffer.lines(), ["日…"])
    }

    func testPutTruncatedTinyWidths() {
        var buffer = ScreenBuffer(width: 5, height: 1)
        XCTAssertEqual(buffer.putTruncated("abc", x: 0, y: 0, maxWidth: 0, glyphs: .unicode), 0)
        XCTAssertEqual(buffer.putTruncated("abc", x: 0, y: 0, maxWidth: 1, glyphs: .unicode), 1)
        XCTAssertEqual(buffer.lines(), ["…"])
    }

    func testPutTruncatedClipsAtBufferEdgeToo() {
        var buffer = ScreenBuffer(width: 5, height: 1)
        XCTAssertEqual(buffer.putTruncated("abcdefgh", x: 2, y: 0, maxWidth: 10, glyphs: .unicode), 3)
        XCTAssertEqual(buffer.lines(), ["  abc"])
    }

    // MARK: - Areas

    func testFillClipsToBuffer() {
        var buffer = ScreenBuffer(width: 4, height: 3)
        buffer.fill(Rect(x: 2, y: 1, width: 10, height: 10), with: Cell("#"))
        XCTAssertEqual(buffer.lines(), ["", "  ##", "  ##"])
    }

    func testSetStyleKeepsText() {
        var buffer = ScreenBuffer(width: 5, height: 2)
        buffer.put("abc", x: 0, y: 1)
        buffer.setStyle(buffer.bounds.row(1)) { $0.reverse = true }
        XCTAssertEqual(buffer.lines(), ["", "abc"])
        XCTAssertEqual(buffer[1, 1], Cell("b", style: Style(reverse: true)))
        XCTAssertEqual(buffer[4, 1].style, Style(reverse: true))
        XCTAssertEqual(buffer[0, 0].style, .plain)
    }

    func testLinesTrimOnlyTrailingSpaces() {
        var buffer = ScreenBuffer(width: 8, height: 1)
        buffer.put(" a  b ", x: 0, y: 0)
        XCTAssertEqual(buffer.lines(), [" a  b"])
    }
}
