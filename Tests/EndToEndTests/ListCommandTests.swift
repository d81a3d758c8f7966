import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope list` and `pipescope attach` without a target, in a private runtime
/// directory so other programs on the machine do not show up.
final class ListCommandTests: XCTestCase {
    private var runtime: String!
    private var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime] }

    override func setUp() { runtime = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: runtime) }

    /// A socket file nobody listens on, as a crashed program leaves behind.
    private func staleSocket(named name: String) throws {
        try FileManager.default.createDirectory(atPath: runtime + "/pipescope", withIntermediateDirectories: true)
        makeStaleSocket(at: runtime + "/pipescope/" + name)
    }

    func testListShowsRunningProgramsAndRemovesStaleSockets() throws {
        try staleSocket(named: "999999.sock")                 // its pid does not exist
        try staleSocket(named: "\(getpid()).sock")             // a live pid, but nothing listens
        let a = try ExampleProgram(socketPath: nil, environment: environment)
        let b = try ExampleProgram(socketPath: nil, environment: environment)
        defer { a.stop(); b.stop() }
        let out = try Programs.run(Programs.pipescope, ["list"], environment: environment)
        XCTAssertEqual(out.status, 0, out.stderr)
        let lines = out.stdout.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("PID") == true, out.stdout)
        for program in [a, b] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("\(program.pid) ") && $0.contains("pipescope-example") },
                          "pid \(program.pid) listed:\n\(out.stdout)")
        }
        XCTAssertEqual(out.stderr, "pipescope: removed 2 stale sockets of programs that exited (in \(runtime!)/pipescope)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: runtime + "/pipescope/999999.sock"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: runtime + "/pipescope/\(getpid()).sock"))
    }

    /// 52 sockets of crashed programs are one line, not 52, before the answer.
    func testManyStaleSocketsAreOneLine() throws {
        for pid in 999_900..<999_952 { try staleSocket(named: "\(pid).sock") }
        try staleSocket(named: "999999.sock")
        let out = try Programs.run(Programs.pipescope, ["list"], environment: environment)
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stderr, "pipescope: removed 53 stale sockets of programs that exited (in \(runtime!)/pipescope)\n")
        XCTAssertTrue(out.stdout.hasPrefix("No instrumented programs are running"), out.stdout)
        let again = try Programs.run(Programs.pipescope, ["list"], environment: environment)
        XCTAssertEqual(again.stderr, "", "nothing left to remove")
    }

    /// A program without a SIGTERM handler of its own, ended by SIGTERM (as `kill` and
    /// service managers end programs), removes its socket and still dies by SIGTERM.
    func testAProgramEndedBySIGTERMRemovesItsSocket() throws {
        let program = try ExampleProgram(socketPath: nil, environment: environment)
        XCTAssertTrue(FileManager.default.fileExists(atPath: program.socketPath))
        program.process.terminate()  // SIGTERM
        program.process.waitUntilExit()
        XCTAssertEqual(program.process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(program.process.terminationStatus, SIGTERM)
        XCTAssertFalse(FileManager.default.fileExists(atPath: program.socketPath), "the program removed its socket")
        let out = try Programs.run(Programs.pipescope, ["list"], environment: environment)
        XCTAssertEqual(out.stderr, "", "nothing stale for list to remove")
    }

    func testListWithNothingRunningSaysSo() throws {
        let out = try Programs.run(Programs.pipescope, ["list"], environment: environment)
        XCTAssertEqual(out.status, 0)
        XCTAssertTrue(out.stdout.contains("No instrumented programs are running"), out.stdout)
    }

    func testAttachWithoutATargetPicksTheOnlyProgram() throws {
        let program = try ExampleProgram(socketPath: nil, environment: environment)
        defer { program.stop() }
        let session = try TerminalSession(width: 100, height: 30, environment: environment)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach")
        // The example's pipelines are named after the function that built them.
        session.expect("buildPipelines", "pid \(program.pid)", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testAttachWithoutATargetAsksWhenThereAreSeveral() throws {
        let a = try ExampleProgram(socketPath: nil, environment: environment)
        let b = try ExampleProgram(socketPath: nil, environment: environment)
        defer { a.stop(); b.stop() }
        // Not a terminal: it cannot ask, so it says which programs there are.
        let out = try Programs.run(Programs.pipescope, ["attach"], environment: environment)
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("several programs are running"), out.stderr)
        XCTAssertTrue(out.stderr.contains("\(a.pid)") && out.stderr.contains("\(b.pid)"), out.stderr)
        // In a terminal it asks, and attaches to the one chosen.
        let session = try TerminalSession(width: 120, height: 30, environment: environment)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach")
        let prompt = session.expect("Attach to which one? [1-2]")
        let second = prompt.split(separator: "\n").first { $0.hasPrefix("2 ") }.map(String.init) ?? ""
        // A number that is not on the list: it says so and asks again.
        session.tmux.sendLiteral("7")
        session.tmux.sendKeys("Enter")
        session.expect("\"7\" is not one of them: type a number from 1 to 2 (Ctrl-D: none). Attach to which one? [1-2]")
        session.tmux.sendLiteral("2")
        session.tmux.sendKeys("Enter")
        let chosen = [a, b].first { second.contains(" \($0.pid) ") }
        // The pipelines table (at 120 columns its LOCATION column leaves the names shortened).
        session.expect("sorted by", "pid \(chosen?.pid ?? -1)", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// A running program's name is a target, as `list` shows it: no pid to look up first.
    func testAProgramsNameIsATarget() throws {
        let program = try ExampleProgram(socketPath: nil, environment: environment)
        defer { program.stop() }
        let out = try Programs.run(Programs.pipescope, ["snapshot", "pipescope-example"], environment: environment)
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stdout.hasPrefix("pipescope-example (pid \(program.pid))"), out.stdout)
    }

    func testNoProgramAndNoTargetIsAClearError() throws {
        let out = try Programs.run(Programs.pipescope, ["attach"], environment: environment)
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("no instrumented programs are running"), out.stderr)
    }
}
