import ArgumentParser
import Dispatch
import Foundation
import PipescopeClient
import Pipescope
import PipescopeDemo

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the built-in demo program and inspect it (the default).",
        discussion: """
            The demo runs as a separate process that links Pipescope like any program would, \
            and the inspector attaches to it through its socket. With --headless only the demo \
            program runs, so you can attach to it yourself.
            """)

    @Flag(help: "Run only the demo program; print its socket path and serve until stopped.")
    var headless = false

    @Flag(help: .hidden)
    var exitWithParent = false

    @OptionGroup var lints: LintOptions

    func run() throws {
        if headless {
            runProgram()
        }
        let withoutTerminal = "`pipescope demo --headless` runs the demo program alone, for `pipescope snapshot` "
            + "or `pipescope attach` from a terminal."
        InspectorLoop.requireTerminal(withoutTerminal: withoutTerminal)  // before a demo program is started for nothing
        let child: DemoChild
        do {
            child = try DemoChild()
        } catch {
            fail("could not start the demo program: \(error)")
        }
        defer { child.stop() }
        do {
            try child.waitForSocket(timeout: 10)
        } catch {
            child.stop()
            fail("\(error)")
        }
        let session = InspectorSession.open(path: child.socketPath, command: "pipescope demo")
        let link = LiveLink(session: session, reconnects: false)
        var loop = InspectorLoop(session: session, link: link, targetName: "demo", stopsProgramOnQuit: true,
                                 fatalCondition: { child.exitDescription })
        loop.linter = lints.linter
        loop.app.save = { SavedRun.saveAnswer($0) }
        loop.withoutTerminal = withoutTerminal
        let outcome = loop.run()
        link.close()
        child.stop()
        if case .failed(let message) = outcome { fail(message) }
    }

    /// The demo program itself: start Pipescope, build the pipelines, run forever.
    private func runProgram() -> Never {
        // The demo is this same binary; name it for what it is in the inspector's title.
        ProcessInfo.processInfo.processName = "pipescope-demo"
        guard let path = Pipescope.start() else { fail("the demo could not serve its socket (see above)") }
        // Written straight to the descriptor: print() to a pipe would sit in a buffer forever.
        FileHandle.standardOutput.write(Data("""
            demo program running as pid \(getpid()); attach with: pipescope attach \(getpid())
            socket: \(path)

            """.utf8))
        let demo = DemoProgram()
        demo.start()
        if exitWithParent { ParentWatch.start() }
        ExitOnSignal.install()
        RunLoop.main.run()
        Foundation.exit(0)
    }
}

/// Ends the demo child when the inspector that started it is gone, even if the
/// inspector was killed without a chance to clean up.
enum ParentWatch {
    nonisolated(unsafe) private static var timer: DispatchSourceTimer?

    static func start() {
        let parent = getppid()
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pipescope.parent-watch"))
        source.schedule(deadline: .now() + 1, repeating: 1)
        source.setEventHandler {
            if getppid() != parent {
                Pipescope.stop()
                exit(0)
            }
        }
        source.resume()
        timer = source
    }
}

/// The demo ends cleanly on SIGTERM and SIGINT (exit runs Pipescope's clean-up, which
/// removes the socket). Only the demo does this: the library never takes a host's signals.
enum ExitOnSignal {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install() {
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { exit(0) }
            source.resume()
            sources.append(source)
        }
    }
}
