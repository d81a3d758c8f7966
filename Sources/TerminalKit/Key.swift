/// A key press, as read by a terminal backend.
///
/// ```swift
/// switch key {
/// case .character("q"), .control("c"): quit()
/// case .down: moveSelection(+1)
/// default: break
/// }
/// ```
public enum Key: Hashable, Sendable {
    /// A printable key, including `" "` and uppercase letters.
    case character(Character)
    /// Ctrl plus a letter, as the lowercase letter: Ctrl-A is `.control("a")`.
    case control(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    /// F1 is `.function(1)`.
    case function(Int)
    /// The terminal changed size; re-read the size and redraw.
    case resize
}
