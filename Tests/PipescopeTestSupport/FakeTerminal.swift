import TerminalKit

/// A terminal for tests: keys come from a script, frames are kept as text.
///
/// Each key is handed out on its own turn, so the app draws a frame after every key, as
/// on a real terminal. When the script is empty the terminal reports an interrupt, so a
/// run always ends.
///
/// ```swift
/// let terminal = FakeTerminal(width: 120, height: 40, keys: [.character("w"), .character("c")])
/// _ = app.run(on: terminal)
/// terminal.screen            // the last frame, one string per line
/// terminal.frames.count      // frames drawn
/// ```
public final class FakeTerminal: TerminalBackend {
    public private(set) var size: (width: Int, height: Int)
    public let isUnicode: Bool
    public let hasColors = false
    private var keys: [Key]
    /// Every frame drawn, oldest first, as lines of text.
    public private(set) var frames: [[String]] = []
    /// Frames drawn right after each scripted key was read (the frame that key produced).
    public private(set) var framesAfterKeys: [[String]] = []
    private var keyJustRead = false
    public private(set) var invalidations = 0

    public init(width: Int, height: Int, unicode: Bool = true, keys: [Key]) {
        size = (width, height)
        isUnicode = unicode
        self.keys = keys
    }

    /// True once every scripted key was read and one more frame drawn.
    public private(set) var interrupted = false

    /// The last frame.
    public var screen: [String] { frames.last ?? [] }

    public func draw(_ buffer: ScreenBuffer) {
        let lines = buffer.lines()
        frames.append(lines)
        if keyJustRead {
            framesAfterKeys.append(lines)
            keyJustRead = false
        }
    }

    /// The next scripted key. With none left, a wait for one (a timeout above 0) ends the
    /// run, as a signal would; a look without waiting (the loop checks between batches)
    /// just finds none.
    public func readKey(timeoutMs: Int) -> Key? {
        guard !keys.isEmpty else {
            if timeoutMs > 0 { interrupted = true }
            return nil
        }
        keyJustRead = true
        let key = keys.removeFirst()
        if key == .resize, !pendingSizes.isEmpty { size = pendingSizes.removeFirst() }
        return key
    }

    public func invalidate() { invalidations += 1 }

    private var pendingSizes: [(width: Int, height: Int)] = []

    /// The terminal is resized after the scripted keys so far: a `.resize` key comes
    /// next, and the size changes when it is read, as curses reports it.
    public func resize(width: Int, height: Int) {
        pendingSizes.append((width, height))
        keys.append(.resize)
    }
}
