@testable import TerminalKit
import XCTest

/// Widths of one-scalar characters below U+3000 come from a table; the table must agree
/// with the rules it was built from for every one of them, and drawing must too.
final class WidthTableTests: XCTestCase {
    func testTheTableAgreesWithTheRulesForEveryScalarItHolds() {
        for value in 0..<ScalarWidths.tableEnd {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let character = Character(scalar)
            XCTAssertEqual(character.terminalWidth, ScalarWidths.width(of: character.unicodeScalars),
                           "U+\(String(value, radix: 16))")
        }
    }

    func testGraphemesOfSeveralScalarsAndScalarsAboveTheTableUseTheRules() {
        XCTAssertEqual(Character("e\u{301}").terminalWidth, 1)
        XCTAssertEqual(Character("❤️").terminalWidth, 2)
        XCTAssertEqual(Character("日").terminalWidth, 2)
        XCTAssertEqual(Character("\u{1F600}").terminalWidth, 2)
    }

    func testTheASCIIPathDrawsAsTheGeneralOne() {
        // A zero-width space at the end draws nothing but sends `put` down the general
        // path: both must write the same cells and say the same width, clipped alike.
        for (x, maxWidth) in [(0, nil), (-2, nil), (3, 4), (7, nil), (0, 0), (12, nil)] as [(Int, Int?)] {
            var ascii = ScreenBuffer(width: 10, height: 1)
            var general = ScreenBuffer(width: 10, height: 1)
            let a = ascii.put("Filter", x: x, y: 0, style: Style(bold: true), maxWidth: maxWidth)
            let g = general.put("Filter\u{200B}", x: x, y: 0, style: Style(bold: true), maxWidth: maxWidth)
            XCTAssertEqual(ascii, general, "x \(x) maxWidth \(String(describing: maxWidth))")
            XCTAssertEqual(a, g, "x \(x) maxWidth \(String(describing: maxWidth))")
        }
    }

    func testTextWidthOfASCIIIsItsLength() {
        XCTAssertEqual("Filter → Sink".terminalWidth, 13)
        XCTAssertEqual("Filter".terminalWidth, 6)
        XCTAssertEqual("a\r\nb".terminalWidth, 3, "\\r\\n is one character")
        XCTAssertEqual("a\tb".terminalWidth, 3)
    }
}
