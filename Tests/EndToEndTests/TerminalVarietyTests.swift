import Foundation
import PipescopeTestSupport
import XCTest

/// The inspector in less friendly terminals, and the keys that reshape the screen.
final class TerminalVarietyTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testVT100AndTheCLocaleGetASCII() throws {
        let program = try ExampleProgram(socketPath: directory + "/vt.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 100, height: 30, environment: ["TERM": "vt100", "LANG": "C", "LC_ALL": "C"])
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        // ASCII box corners and sort mark.
        let screen = session.expect("Sequence -> Sink", "+ Pipelines: ", "sorted by RATE v", "* active", timeout: 30)
        XCTAssertFalse(screen.contains("│") || screen.contains("●") || screen.contains("→"), "no UTF-8 glyphs:\n\(screen)")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testFilteringAndClearing() throws {
        let program = try ExampleProgram(socketPath: directory + "/f.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        session.expect("Sequence → Sink", timeout: 30)
        session.tmux.sendKeys("/")
        session.tmux.sendLiteral("Sequence")
        session.tmux.sendKeys("Enter")
        session.expect("/Sequence: 1 match", "Sequence → Sink")
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("/Sequence: 1 match") && !$0.contains("Filter → Sink") },
                                             timeout: 5),
                        "other pipelines are hidden:\n\(session.tmux.lastScreen)")
        session.tmux.sendKeys("Escape", "Escape")
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("Filter → Sink") && !$0.contains("/Sequence") }, timeout: 5))
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testSwitchingPanesAndQuittingFromEach() throws {
        let program = try ExampleProgram(socketPath: directory + "/tab.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 140, height: 40)
        defer { session.kill() }
        for (tabs, title) in [(0, "stages) *"), (1, "= fit *"), (2, "Stage *"), (3, "Events *")] {
            session.type("\(Programs.pipescope) attach \(program.socketPath)")
            session.showTree(timeout: 30)
            session.expect("Filter → Sink", timeout: 30)
            for _ in 0..<tabs { session.tmux.sendKeys("Tab") }
            // The Stage pane's title counts its lines when they do not all fit:
            // "Stage: lines 1-15 of 18 ↑↓ *".
            session.expect(title) { $0.contains(title) || (title == "Stage *" && $0.contains("↑↓ *")) }
            session.tmux.sendKeys("q")
            session.expect("EXIT=0")
            session.expectUsableShell()
            session.tmux.sendKeys("C-l")   // a clean screen for the next round
            _ = session.tmux.waitFor({ !$0.contains("EXIT=0") }, timeout: 5)
        }
    }

    func testZoomingTheTimeline() throws {
        let program = try ExampleProgram(socketPath: directory + "/z.sock")
        defer { program.stop() }
        let session = try TerminalSession(width: 140, height: 40)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        session.showTree(timeout: 30)
        session.expect("100 ms/col", timeout: 30)
        session.tmux.sendKeys("-")
        session.expect("200 ms/col")
        session.tmux.sendKeys("+", "+")
        session.expect("50 ms/col")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }
}
