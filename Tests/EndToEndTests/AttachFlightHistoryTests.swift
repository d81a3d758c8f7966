import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope attach` on a program with a flight recorder, in a real terminal: history
/// starts at the program's start, and the screen says so; `--from-attach` starts it at
/// attach, as without a recorder.
final class AttachFlightHistoryTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testGReachesTheProgramsStartThroughItsFlightRecorder() throws {
        let program = try ExampleProgram(socketPath: directory + "/flight.sock",
                                         environment: ["PIPESCOPE_FLIGHT": directory + "/flight"])
        defer { program.stop() }
        let session = try TerminalSession(width: 140, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(program.socketPath)")
        session.expect("history from the program's start: ", "before attach, from its flight recorder", timeout: 30)
        session.tmux.sendKeys("g")
        session.expect("history · before the first event: the program's start (its flight recorder)")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testFromAttachStartsHistoryAtAttach() throws {
        let program = try ExampleProgram(socketPath: directory + "/flight.sock",
                                         environment: ["PIPESCOPE_FLIGHT": directory + "/flight"])
        defer { program.stop() }
        let session = try TerminalSession(width: 140, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach --from-attach \(program.socketPath)")
        session.expect("LIVE", "buildPipelines", timeout: 30)
        // Events since attach (g has nowhere to go before the first).
        XCTAssertNotNil(session.tmux.waitFor({ $0.range(of: #"LIVE +[1-9][0-9]* ev/s"#, options: .regularExpression) != nil },
                                             timeout: 15))
        session.tmux.sendKeys("g")
        session.expect("history · before the first event: the graph as it began")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }
}
