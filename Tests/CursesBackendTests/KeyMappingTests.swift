import CNcurses
@testable import CursesBackend
import TerminalKit
import XCTest

/// What ncurses hands the inspector becomes the keys the key map knows: its `KEY_*`
/// codes and the characters a terminal sends, control characters included.
final class KeyMappingTests: XCTestCase {
    func testNcursesKeyCodesBecomeTheirKeys() {
        let codes: [(Int32, Key)] = [
            (pipescope_key_up(), .up), (pipescope_key_down(), .down), (pipescope_key_left(), .left),
            (pipescope_key_right(), .right), (pipescope_key_ppage(), .pageUp), (pipescope_key_npage(), .pageDown),
            (pipescope_key_home(), .home), (pipescope_key_end(), .end), (pipescope_key_enter(), .enter),
            (pipescope_key_btab(), .backTab), (pipescope_key_backspace(), .backspace), (pipescope_key_dc(), .delete),
            (pipescope_key_resize(), .resize),
            (pipescope_key_f0() + 1, .function(1)), (pipescope_key_f0() + 12, .function(12)),
        ]
        for (code, key) in codes {
            XCTAssertEqual(CursesTerminal.key(forKeyCode: code), key, "code \(code)")
        }
        XCTAssertNil(CursesTerminal.key(forKeyCode: pipescope_key_f0()), "F0 is no key")
        XCTAssertNil(CursesTerminal.key(forKeyCode: pipescope_key_f0() + 64), "past F63")
    }

    func testCharactersBecomeKeysAndUnusedControlsNone() {
        XCTAssertEqual(CursesTerminal.key(forCharacter: 27), .escape)
        XCTAssertEqual(CursesTerminal.key(forCharacter: 9), .tab)
        XCTAssertEqual(CursesTerminal.key(forCharacter: 10), .enter)
        XCTAssertEqual(CursesTerminal.key(forCharacter: 13), .enter)
        XCTAssertEqual(CursesTerminal.key(forCharacter: 127), .backspace)
        XCTAssertEqual(CursesTerminal.key(forCharacter: 8), .backspace)
        XCTAssertEqual(CursesTerminal.key(forCharacter: 3), .control("c"), "Ctrl-C")
        XCTAssertEqual(CursesTerminal.key(forCharacter: 1), .control("a"))
        XCTAssertEqual(CursesTerminal.key(forCharacter: 26), .control("z"))
        XCTAssertEqual(CursesTerminal.key(forCharacter: UInt32(("q" as Unicode.Scalar).value)), .character("q"))
        XCTAssertEqual(CursesTerminal.key(forCharacter: 0x2191), .character("↑"), "a wide character read whole")
        for unused: UInt32 in [0, 28, 31, 0x80, 0x9F] {
            XCTAssertNil(CursesTerminal.key(forCharacter: unused), "\(unused) is no key")
        }
        XCTAssertNil(CursesTerminal.key(forCharacter: 0xD800), "a lone surrogate is no character")
    }

    func testTerminalErrorsSayWhatToDo() {
        XCTAssertTrue(TerminalError.unknownTerminal(nil).description.contains("TERM=xterm-256color"))
        XCTAssertTrue(TerminalError.unknownTerminal("vt999").description.contains("TERM=\"vt999\""))
        XCTAssertTrue(TerminalError.notATerminal.description.contains("not a terminal"))
    }
}
