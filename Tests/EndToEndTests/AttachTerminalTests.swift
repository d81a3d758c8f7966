import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope attach` on a separate program, in a real terminal.
final class AttachTerminalTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testAttachShowsTheProgramAndQuitsCleanly() throws {
        let program = try ExampleProgram(socketPath: directory + "/attach.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        // Its pipelines, named after the function that built them: `buildPipelines → Sequence → Sink`.
        session.expect("buildPipelines", "pipescope-example (pid \(program.pid))", "LIVE", "Sequence → Sink",
                       "finished", "cancelled", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
        XCTAssertTrue(program.process.isRunning, "quitting the inspector leaves the program running")
    }

    /// Attached with --readonly, the status bar says so, the keys that would change the
    /// program say why they do nothing, and the help says the program keeps running.
    func testReadOnlySaysSoAndEveryKeyThatWouldActSaysWhy() throws {
        let program = try ExampleProgram(socketPath: directory + "/readonly.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach --readonly \(program.socketPath)")
        session.expect("LIVE · read-only", "Sequence → Sink", timeout: 30)
        for (key, said) in [("c", "read-only: cancelling is refused"), ("Space", "read-only: pausing is refused"),
                            ("n", "read-only: stepping is refused"), ("v", "read-only: watching is refused")] {
            session.tmux.sendKeys(key)
            session.expect(said)
        }
        session.tmux.sendKeys("?")
        session.tmux.sendKeys("End")
        session.expect("quit (the program keeps running)")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        XCTAssertTrue(program.process.isRunning, "the program runs on")
    }

    func testProgramExitShowsDisconnectedAndKeepsWhatWasSeen() throws {
        let program = try ExampleProgram(socketPath: directory + "/exit.sock")
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        session.expect("Sequence → Sink", timeout: 30)
        program.stop()
        session.expect("ENDED", "Sequence → Sink")  // the last picture stays on screen
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testAProgramRestartedOnTheSamePathIsPickedUpAgain() throws {
        let path = directory + "/restart.sock"
        let first = try ExampleProgram(socketPath: path)
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(path)")
        session.expect("pid \(first.pid)", timeout: 30)
        first.stop()
        session.expect("ENDED")
        let second = try ExampleProgram(socketPath: path)
        defer { second.stop() }
        session.expect("attached to a new run: pipescope-example (pid \(second.pid))", "LIVE · run 2/2", timeout: 10)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// The issue's walk: `attach --wait NAME` before the program runs; the program is
    /// killed while attached; the inspector says it ended, history still moves, `s`
    /// saves what it holds; the program starts again and the inspector attaches to the
    /// new run, keeping the ended one a keypress away.
    func testAKilledProgramEndsItsRunAndAttachWaitAttachesToTheNextOne() throws {
        let runtime = ["XDG_RUNTIME_DIR": directory!]
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("cd \(directory!) && XDG_RUNTIME_DIR=\(directory!) PIPESCOPE_SAVE_DIR=\(directory!)/saved "
                     + "\(Programs.pipescope) attach --wait pipescope-example")
        session.expect("waiting for a program named pipescope-example to start", timeout: 30)
        let first = try ExampleProgram(socketPath: nil, environment: runtime)
        defer { first.stop() }
        session.expect("pid \(first.pid)", "LIVE", "Sequence → Sink", timeout: 30)
        // Killed only once events have come (the snapshot alone leaves no history to move in).
        session.expect("events arriving", timeout: 30) {
            $0.range(of: #"LIVE +[1-9][0-9.]*[kM]? ev/s"#, options: .regularExpression) != nil
        }
        kill(first.pid, SIGKILL)
        first.process.waitUntilExit()
        session.expect("ENDED", "waiting for pipescope-example to start again", "Sequence → Sink", timeout: 10)
        // History still moves: back one event, then forward to the end again.
        session.tmux.sendKeys("[")
        session.expect("HISTORY", "· ENDED")
        session.tmux.sendKeys("s")
        // The line names the file, in PIPESCOPE_SAVE_DIR, not the current directory (its end
        // may be cut at this width: the count varies).
        session.expect("saved", "events to \(directory!)/saved/pipescope-example-")
        let saved = try FileManager.default.contentsOfDirectory(atPath: directory + "/saved")
        XCTAssertEqual(saved.filter { $0.hasSuffix(".pipescope") }.count, 1, "one recording saved: \(saved)")
        let here = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".pipescope") }
        XCTAssertEqual(here, [], "nothing saved in the current directory")

        let second = try ExampleProgram(socketPath: nil, environment: runtime)
        defer { second.stop() }
        session.expect("pid \(second.pid)", "LIVE · run 2/2", timeout: 15)
        // g at the new run's start steps back into the run that ended.
        session.tmux.sendKeys("g")
        session.tmux.sendKeys("g")
        session.expect("RUN 1/2 ENDED", "pid \(first.pid)")
        session.tmux.sendKeys("G")
        session.expect("LIVE · run 2/2")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testMissingOrUnknownTERMIsAClearError() throws {
        let program = try ExampleProgram(socketPath: directory + "/term.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("env -u TERM \(Programs.pipescope) attach \(program.socketPath)")
        var screen = session.expect("EXIT=1")
        XCTAssertTrue(screen.contains("TERM"), screen)
        session.type("TERM=no-such-terminal \(Programs.pipescope) attach \(program.socketPath)")
        screen = session.expect("no-such-terminal")
        XCTAssertFalse(screen.contains("Fatal error"))
        session.expectUsableShell()
    }
}
