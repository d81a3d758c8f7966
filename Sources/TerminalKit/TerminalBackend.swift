/// A terminal an app draws frames on and reads keys from: curses on a real terminal
/// (CursesBackend), or a fake in tests (PipescopeTestSupport's `FakeTerminal`).
public protocol TerminalBackend: AnyObject {
    /// Columns and lines now.
    var size: (width: Int, height: Int) { get }
    /// The terminal shows more than ASCII.
    var isUnicode: Bool { get }
    var hasColors: Bool { get }
    /// A signal asked the app to end; it should return cleanly.
    var interrupted: Bool { get }
    /// Shows `buffer` (a backend draws only what changed since the last frame).
    func draw(_ buffer: ScreenBuffer)
    /// The next key, waiting at most `timeoutMs`; nil when none came.
    func readKey(timeoutMs: Int) -> Key?
    /// Makes the next frame redraw every cell.
    func invalidate()
}
