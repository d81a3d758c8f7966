import CPipescopeMemory
import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeViews
import TerminalKit

/// The interactive inspector on any terminal: reads keys and messages, reduces them into
/// the state, draws the state, and hands the effects that reach the program to
/// `perform`. Curses in the real app, a fake terminal in tests.
///
/// ```swift
/// let app = InspectorApp(targetName: "demo", initial: session.openingMessages,
///                        poll: { link.poll() }, perform: { link.perform($0) })
/// switch app.run(on: try CursesTerminal()) { … }
/// ```
public struct InspectorApp {
    public enum Outcome: Equatable {
        case quit
        case failed(String)
    }

    public let targetName: String
    /// Which lints run.
    public var linter = Linter()
    /// How long ended stages stay before the inspector prunes its copy: the program's
    /// `PIPESCOPE_RETAIN_SECONDS`, `PIPESCOPE_RETAIN_PIPELINES` and
    /// `PIPESCOPE_RETAIN_INNER`, read from the inspector's own environment (the demo's
    /// program inherits it).
    public var retention = Retention.fromEnvironment()
    /// The inspector started the program and stops it when it quits (the demo).
    public var quitStopsProgram = false
    /// What to apply before the first frame (attach, snapshot; or a whole recording).
    public let initial: [Message]
    /// Asked every turn for what arrived since.
    public let poll: () -> [Message]
    /// Asked every turn; a non-nil answer ends the loop with that message.
    public var fatalCondition: () -> String? = { nil }
    /// Carries out an effect on the program (cancel, pause, step, watch); never `.quit`.
    public let perform: (Effect) -> Void
    /// Saves the run on screen as a recording (`s`): the file's path and what was
    /// written, or why not, for the status line. nil: saving is not offered here.
    public var save: ((AppState) -> (ok: Bool, text: String))?
    /// Waits for the program to start again whenever it ends (`attach --wait`).
    public var waitsForRestart = false
    /// Told the warnings after every tick, as the warnings list groups them (the same
    /// mistake in the same place once): `attach --dump-on` dumps when one first shows.
    public var onWarnings: ([LintGroup]) -> Void = { _ in }
    /// Where history beyond its in-memory window goes (``AppState/historySpill``).
    public var historySpill: HistorySpill.Options?
    /// Whether ``poll`` has more to hand at once (a replay still reading its recording):
    /// the loop then does not wait for a key between turns.
    public var moreToRead: () -> Bool = { false }
    /// The wall clock, in nanoseconds since 1970, for ticks.
    public var clock: () -> Int64 = InspectorApp.wallClockNanos

    public static let frameMillis = 40
    public static let tickNanos: Int64 = 250_000_000
    /// How often the loop gives malloc's free memory back to the system. A full history
    /// frees about as much as it allocates (evicted events, batches folded and dropped),
    /// and glibc keeps freed pages resident: in the inspector-memory benchmark, 134
    /// resident bytes an event kept without it, 78 with it, against 99 in use.
    public static let releaseNanos: Int64 = 5_000_000_000

    public init(targetName: String, initial: [Message], poll: @escaping () -> [Message] = { [] },
                perform: @escaping (Effect) -> Void = { _ in }) {
        self.targetName = targetName
        self.initial = initial
        self.poll = poll
        self.perform = perform
    }

    /// Runs until the user quits, a signal arrives, or ``fatalCondition`` says why not.
    ///
    /// Keys come first. A key is answered and its screen drawn as soon as it is read:
    /// between two of the batches that came during a frame (folding a busy program's
    /// batches takes a good part of each frame), and before the batches that arrive
    /// after it. So a key waits at most for one batch's fold or one tick, never for a
    /// frame's worth of them.
    public func run(on terminal: TerminalBackend) -> Outcome {
        var state = AppState(targetName: targetName)
        state.linter = linter
        state.retention = retention
        state.quitStopsProgram = quitStopsProgram
        state.historySpill = historySpill
        if waitsForRestart { state.waitForNextRun() }
        for message in initial { _ = reduce(&state, message) }
        let theme = Theme(glyphs: terminal.isUnicode ? .unicode : .ascii, colors: terminal.hasColors)
        var lastTick: Int64 = 0
        var lastRelease: Int64 = 0
        var laidOut = false

        func draw() {
            let size = terminal.size
            // Always once: the state's default size is 80x24, and a terminal of that size
            // must still get its layout's pages (End in the help, PgDn in the tree).
            if size.width != state.width || size.height != state.height || !laidOut {
                laidOut = true
                _ = reduce(&state, ScreenView.resized(width: size.width, height: size.height, theme: theme,
                                                      quitting: KeyMap.Quitting(state)))
            }
            if let lines = ScreenView.detailLines(state, theme: theme), lines != state.detail.lines {
                _ = reduce(&state, .detailLines(lines))
            }
            if case .warnings(let overlay) = state.layer, let rows = ScreenView.warningsShown(state, theme: theme),
               rows != overlay.rowsShown {
                _ = reduce(&state, .warningsShown(rows))
            }
            var buffer = ScreenBuffer(width: size.width, height: size.height)
            ScreenView.render(state, theme: theme, into: &buffer)
            terminal.draw(buffer)
        }

        /// Answers `key` and draws its screen; the outcome when the key ends the run.
        func answer(_ key: Key) -> Outcome? {
            if key == .resize {
                terminal.invalidate()
            } else if let action = KeyMap.action(for: key, in: state.layer) {
                for effect in reduce(&state, .action(action)) {
                    switch effect {
                    case .quit: return .quit
                    case .save:
                        let answer = save?(state) ?? (ok: false, text: "saving is not available here")
                        _ = reduce(&state, .acknowledged(ok: answer.ok, text: answer.text))
                    default: perform(effect)
                    }
                }
            } else {
                return nil
            }
            draw()
            return nil
        }

        while !terminal.interrupted {
            for message in poll() {
                _ = reduce(&state, message)
                if let key = terminal.readKey(timeoutMs: 0), let outcome = answer(key) { return outcome }
            }
            if let fatal = fatalCondition() { return .failed(fatal) }
            let now = clock()
            if now - lastTick >= Self.tickNanos {
                lastTick = now
                _ = reduce(&state, .tick(nanos: now))
                onWarnings(state.warnings.groups)
            }
            if now - lastRelease >= Self.releaseNanos {
                lastRelease = now
                _ = pipescope_release_free_memory()
            }
            draw()
            guard let key = terminal.readKey(timeoutMs: moreToRead() ? 0 : Self.frameMillis) else { continue }
            if let outcome = answer(key) { return outcome }
        }
        return .quit
    }

    public static func wallClockNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
