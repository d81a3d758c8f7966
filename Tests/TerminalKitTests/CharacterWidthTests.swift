import TerminalKit
import XCTest

final class CharacterWidthTests: XCTestCase {
    func testNarrow() {
        for c: Character in ["a", " ", "~", "é", "ж", "●", "✓", "…", "─", "▸", "⚠"] {
            XCTAssertEqual(c.terminalWidth, 1, "\(c)")
        }
    }

    func testWide() {
        for c: Character in ["日", "한", "Ａ", "😀", "🇫🇷", "👍🏽", "❤️", "　"] {
            XCTAssertEqual(c.terminalWidth, 2, "\(c)")
        }
    }

    func testHalfwidthKatakanaIsNarrow() {
        XCTAssertEqual(Character("ｶ").terminalWidth, 1)
    }

    func testZeroWidth() {
        XCTAssertEqual(Character("\u{301}").terminalWidth, 0)
        XCTAssertEqual(Character("\u{200B}").terminalWidth, 0)
        XCTAssertEqual(Character("e\u{301}").terminalWidth, 1)
    }

    func testControlsCountAsTheirPlaceholder() {
        XCTAssertEqual(Character("\n").terminalWidth, 1)
        XCTAssertEqual(Character("\t").terminalWidth, 1)
        XCTAssertEqual(Character("\r\n").terminalWidth, 1)
    }

    func testStringWidth() {
        XCTAssertEqual("Map 日本 😀".terminalWidth, 11)
        XCTAssertEqual("".terminalWidth, 0)
    }
}
