import CursesBackend
import PipescopeApp
import PipescopeClient
import PipescopeModel

/// The interactive inspector on the real terminal: an ``InspectorApp`` drawn with
/// curses. The terminal is restored on every way out.
struct InspectorLoop {
    var app: InspectorApp
    /// What the command can do without a terminal, said after the inspector could not
    /// open one (each command names itself: `pipescope snapshot 4242 --json`, …).
    var withoutTerminal = ""

    /// The inspector on a live program; `stopsProgramOnQuit` when it started the program
    /// itself (the demo), so the help says that quitting stops it.
    /// `dumps`: `attach --dump-on`, told the lints and the effects, its notices polled.
    /// `opening`: what the model starts from, when not the session's own opening (the
    /// program's past from its flight recorder, ``FlightHistory``).
    init(session: ProbeSession, link: LiveLink, targetName: String, stopsProgramOnQuit: Bool = false,
         dumps: DumpTrigger? = nil, opening: [Message]? = nil, fatalCondition: @escaping () -> String? = { nil }) {
        app = InspectorApp(targetName: targetName, initial: opening ?? session.openingMessages,
                           poll: { link.poll() + (dumps?.take() ?? []) },
                           perform: { effect in
                               dumps?.performed(effect)
                               link.perform(effect)
                           })
        if let dumps { app.onWarnings = { dumps.warnings($0) } }
        // What leaves memory goes to disk, so `g` reaches the first event since attach.
        app.historySpill = HistorySpill.Options.fromEnvironment()
        app.fatalCondition = fatalCondition
        app.quitStopsProgram = stopsProgramOnQuit
    }

    /// The inspector on a recording: nothing reaches a program.
    init(replaying messages: [Message], targetName: String) {
        app = InspectorApp(targetName: targetName, initial: messages)
    }

    /// The inspector on a recording read while it is shown: `opening` before the first
    /// frame, then the rest a slice per turn (about 30 ms of reading, so keys are still
    /// answered at once), the note from `end` when it is all read. History beyond memory
    /// goes to disk, so `g` is the recording's first event.
    init(streaming stream: ReplayStream, opening: [Message], end: @escaping (Recording) -> Message?) {
        app = InspectorApp(targetName: stream.recording.process, initial: opening,
                           poll: { stream.next(forNanos: 30_000_000, end: end) })
        // Followed and waiting for its writer: frames at the usual pace, not a busy loop.
        app.moreToRead = { !stream.finished && !stream.waiting }
        app.historySpill = HistorySpill.Options.fromEnvironment()
    }

    /// Ends the command with the message ``run()`` would give, when the inspector could
    /// not open the terminal: checked before starting anything (a demo program, a wait,
    /// reading a recording). `withoutTerminal` says what to do instead.
    static func requireTerminal(withoutTerminal: String) {
        do {
            try CursesTerminal.checkUsable()
        } catch {
            fail(message(for: error, withoutTerminal: withoutTerminal))
        }
    }

    private static func message(for error: Error, withoutTerminal: String) -> String {
        if case TerminalError.notATerminal = error { return "\(error) \(withoutTerminal)" }
        return "\(error)"
    }

    var linter: Linter {
        get { app.linter }
        set { app.linter = newValue }
    }

    func run() -> InspectorApp.Outcome {
        let terminal: CursesTerminal
        do {
            terminal = try CursesTerminal()
        } catch {
            return .failed(Self.message(for: error, withoutTerminal: withoutTerminal))
        }
        defer { terminal.restore() }
        return app.run(on: terminal)
    }
}
