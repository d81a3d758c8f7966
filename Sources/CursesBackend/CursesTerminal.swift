import CNcurses
import Glibc
import TerminalKit

/// The ncurses terminal: opens the screen, draws buffers, reads keys, and restores the
/// terminal on every way out.
///
/// Create one per process, on the thread that runs the UI loop, and call ``restore()``
/// before exiting (it is also registered with `atexit`).
///
/// ```swift
/// let terminal = try CursesTerminal()
/// defer { terminal.restore() }
/// while !terminal.interrupted {
///     let (width, height) = terminal.size
///     var frame = ScreenBuffer(width: width, height: height)
///     render(state, into: &frame)
///     terminal.draw(frame)
///     if terminal.readKey(timeoutMs: 100) == .character("q") { break }
/// }
/// ```
public final class CursesTerminal: TerminalBackend {
    /// True when the locale's codeset is UTF-8; choose `Glyphs.unicode` then.
    public let isUnicode: Bool
    /// True when the terminal has colours and `NO_COLOR` is not set (to a non-empty value).
    public let hasColors: Bool

    /// Whether `use_default_colors` worked, so -1 means "the terminal's own colour".
    private let hasDefaultColors: Bool
    /// The last frame drawn, to diff against.
    var previous: ScreenBuffer?
    /// The screen size the last frame was drawn at.
    var previousSize: (width: Int, height: Int) = (0, 0)
    /// Set by ``invalidate()``: clear the terminal and draw everything next time.
    var needsFullRedraw = true
    /// Colour pairs allocated so far, by (foreground, background).
    var colorPairs: [ColorPairKey: Int16] = [:]

    /// Throws what ``init()`` would for a missing terminal or an unset `TERM`, without
    /// opening it: a command checks first, before it starts anything (a demo program, a
    /// wait, reading a recording) that would be wasted.
    public static func checkUsable() throws {
        guard isatty(0) == 1, isatty(1) == 1 else { throw TerminalError.notATerminal }
        guard let term = getenv("TERM"), term.pointee != 0 else { throw TerminalError.unknownTerminal(nil) }
    }

    /// Opens the terminal in cbreak, no-echo mode with the cursor hidden.
    ///
    /// - Throws: ``TerminalError/notATerminal`` when stdin or stdout is not a terminal,
    ///   ``TerminalError/unknownTerminal(_:)`` when `TERM` is unset or unknown.
    public init() throws {
        try Self.checkUsable()
        setlocale(LC_ALL, "")
        let term = getenv("TERM").map { String(cString: $0) } ?? ""


        // Our handlers go in first: ncurses only installs its own where none is set.
        saveTerminalModes()
        installShutdownHandlers()
        guard let screen = newterm(nil, pipescope_stdout(), pipescope_stdin()) else {
            removeShutdownHandlers()
            throw TerminalError.unknownTerminal(term)
        }
        set_term(screen)
        cursesActive.store(true, ordering: .relaxed)
        installCrashHandlers()
        if !atexitRegistered.exchange(true, ordering: .relaxed) {
            atexit { restoreTerminalIfActive() }
        }

        _ = pipescope_set_escdelay(25)
        cbreak()
        noecho()
        nonl()
        let window = pipescope_stdscr()
        keypad(window, true)
        intrflush(window, false)
        curs_set(0)

        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        hasColors = pipescope_has_colors() != 0 && !noColor
        if hasColors {
            start_color()
            hasDefaultColors = use_default_colors() == pipescope_ok()
        } else {
            hasDefaultColors = false
        }
        isUnicode = pipescope_locale_is_utf8() != 0
    }

    deinit { restore() }

    /// The terminal's size in columns and lines, as of the last `.resize` key.
    public var size: (width: Int, height: Int) {
        guard cursesActive.load(ordering: .relaxed) else { return (0, 0) }
        let window = pipescope_stdscr()
        return (Int(pipescope_width(window)), Int(pipescope_height(window)))
    }

    /// True once SIGINT, SIGTERM or SIGHUP arrived; the UI loop should then exit cleanly.
    public var interrupted: Bool { interruptRequested.load(ordering: .relaxed) }

    /// Makes the next ``draw(_:)`` clear the terminal and draw every cell, for example
    /// after another program wrote over the screen (Ctrl-L).
    public func invalidate() { needsFullRedraw = true }

    /// Leaves curses mode and puts the terminal back as it was. Safe to call repeatedly.
    public func restore() {
        restoreTerminalIfActive()
        removeShutdownHandlers()
        removeCrashHandlers()
    }

    /// Converts an attribute/pair result of the colour tables for the draw code.
    var defaultColor: (foreground: Int16, background: Int16) {
        hasDefaultColors ? (-1, -1) : (Int16(COLOR_WHITE), Int16(COLOR_BLACK))
    }
}

/// Ends curses mode if it is on; used by `restore()` and the `atexit` hook.
func restoreTerminalIfActive() {
    guard cursesActive.exchange(false, ordering: .relaxed) else { return }
    if !isendwin() { endwin() }
}
