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
    init(session: ProbeSession, link: LiveLink, targetName: String, stopsProgramOnQuit: Bool = false,
         dumps: DumpTrigger? = nil, fatalCondition: @escaping () -> String? = { nil }) {
        app = InspectorApp(targetName: targetName, initial: session.openingMessages,
                           poll: { link.poll() + (dumps?.take() ?? []) },
                           perform: { effect in
                               dumps?.performed(effect)
                               link.perform(effect)
                           })
        if let dumps { app.onWarnings = { dumps.warnings($0) } }
        app.fatalCondition = fatalCondition
        app.quitStopsProgram = stopsProgramOnQuit
    }

    /// The inspector on a recording: nothing reaches a program.
    init(replaying messages: [Message], targetName: String) {
        app = InspectorApp(targetName: targetName, initial: messages)
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
