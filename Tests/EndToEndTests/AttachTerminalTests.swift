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
        session.expect("Filter → Sink", "pipescope-example (pid \(program.pid))", "LIVE", "Sequence → Sink",
                       "finished", "cancelled", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
        XCTAssertTrue(program.process.isRunning, "quitting the inspector leaves the program running")
    }

    func testProgramExitShowsDisconnectedAndKeepsWhatWasSeen() throws {
        let program = try ExampleProgram(socketPath: directory + "/exit.sock")
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        session.expect("Filter → Sink", timeout: 30)
        program.stop()
        session.expect("DISCONNECTED", "Filter → Sink")  // the last picture stays on screen
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
        session.expect("DISCONNECTED")
        let second = try ExampleProgram(socketPath: path)
        defer { second.stop() }
        session.expect("reconnected to pipescope-example (pid \(second.pid))", "LIVE", timeout: 10)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
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
