import CNcurses
import Glibc
import TerminalKit

// MARK: - Reading keys

extension CursesTerminal {
    /// Waits up to `timeoutMs` milliseconds for one key press; `nil` on timeout, on a
    /// key Pipescope does not use, or when a shutdown signal interrupts the wait.
    /// A negative timeout waits indefinitely (until a key or a signal).
    ///
    /// ```swift
    /// switch terminal.readKey(timeoutMs: 100) {
    /// case .resize?: redraw()
    /// case .character("q")?: quit()
    /// default: tick()
    /// }
    /// ```
    public func readKey(timeoutMs: Int) -> Key? {
        guard cursesActive.load(ordering: .relaxed), !interrupted else { return nil }
        let window = pipescope_stdscr()
        wtimeout(window, Int32(clamping: timeoutMs))
        var code: wint_t = 0
        let result = wget_wch(window, &code)
        if result == pipescope_key_code_yes() {
            return Self.key(forKeyCode: Int32(bitPattern: code))
        } else if result == pipescope_ok() {
            return Self.key(forCharacter: UInt32(code))
        }
        return nil  // ERR: timeout or EINTR
    }

    /// Maps an ncurses `KEY_*` code.
    static func key(forKeyCode code: Int32) -> Key? {
        switch code {
        case pipescope_key_up(): return .up
        case pipescope_key_down(): return .down
        case pipescope_key_left(): return .left
        case pipescope_key_right(): return .right
        case pipescope_key_ppage(): return .pageUp
        case pipescope_key_npage(): return .pageDown
        case pipescope_key_home(): return .home
        case pipescope_key_end(): return .end
        case pipescope_key_enter(): return .enter
        case pipescope_key_btab(): return .backTab
        case pipescope_key_backspace(): return .backspace
        case pipescope_key_dc(): return .delete
        case pipescope_key_resize(): return .resize
        case pipescope_key_f0() + 1 ... pipescope_key_f0() + 63:
            return .function(Int(code - pipescope_key_f0()))
        default: return nil
        }
    }

    /// Maps a character read from the terminal (control characters included).
    static func key(forCharacter value: UInt32) -> Key? {
        switch value {
        case 27: return .escape
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(96 + value))))
        case 0...31, 0x80...0x9F: return nil
        default: return Unicode.Scalar(value).map { .character(Character($0)) }
        }
    }
}
