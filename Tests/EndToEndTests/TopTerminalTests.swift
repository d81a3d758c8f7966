import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope top --prometheus` in tmux at 80x24, against a fake Prometheus serving the
/// answers a real one gives for two programs: one whose scrape target names its probe
/// (a running pipescope-example's socket), one top cannot reach. Enter on the first
/// opens the inspector on it and `q` comes back to the table; on the second the status
/// line says why not; `q` leaves a usable shell. Then a Prometheus that is not there.
final class TopTerminalTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testTheFleetTableAttachesToAReachableRowAndSaysWhyNotForTheOther() throws {
        let program = try ExampleProgram(socketPath: directory + "/top.sock")
        defer { program.stop() }
        let socket = program.socketPath
        let server = try FakePrometheus { query in
            if query.hasPrefix("count by (instance, job, pipescope_probe)") {
                return (200, FakePrometheus.vector([
                    (["instance": "127.0.0.1:19464", "job": "example", "pipescope_probe": socket], "6"),
                    (["instance": "shop-7.internal:9464", "job": "shop"], "9"),
                ]))
            }
            if query.contains("pipescope_pipelines_waiting") {
                return (200, FakePrometheus.vector([(["instance": "shop-7.internal:9464"], "2")]))
            }
            if query.contains("pipescope_pipelines") {
                return (200, FakePrometheus.vector([(["instance": "127.0.0.1:19464"], "3"),
                                                    (["instance": "shop-7.internal:9464"], "1250")]))
            }
            return (200, FakePrometheus.vector([]))
        }
        defer { server.stop() }
        let session = try TerminalSession(width: 80, height: 24)
        defer { session.kill() }
        session.type("\(Programs.pipescope) top --prometheus http://127.0.0.1:\(server.port)")
        let screen = session.expect("2 programs", "INSTANCE", "PIPELINES", "WAITING▼", "shop-7.internal:9464", "1250",
                                    "127.0.0.1:19464", "q quit", timeout: 30)
        let lines = screen.split(separator: "\n").map(String.init)
        let shop = try XCTUnwrap(lines.firstIndex { $0.contains("shop-7.internal") })
        let local = try XCTUnwrap(lines.firstIndex { $0.contains("127.0.0.1:19464") })
        XCTAssertLessThan(shop, local, "sorted by WAITING, most first:\n\(screen)")

        // The shop's row is selected (first): Enter says why it cannot be reached.
        session.tmux.sendKeys("Enter")
        session.expect("cannot attach to shop-7.internal:9464", "pipescope_probe")
        // Down to the example's row: Enter opens the inspector on its socket; q comes back.
        session.tmux.sendKeys("Down", "Enter")
        session.expect("pipescope-example (pid \(program.pid))", "buildPipelines", "LIVE", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("detached from 127.0.0.1:19464", "INSTANCE", timeout: 20)
        // `>` sorts by the next column, as the pipelines table's does.
        session.tmux.sendKeys(">")
        session.expect("sorted by lints", "LINTS▼")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testPrometheusNotThereIsSaidInTheTableAndQuitLeavesTheShell() throws {
        let port = freeTCPPort()
        let session = try TerminalSession(width: 80, height: 24)
        defer { session.kill() }
        session.type("\(Programs.pipescope) top --prometheus 127.0.0.1:\(port)")
        session.expect("cannot reach Prometheus at 127.0.0.1:\(port): connection refused", "q quit", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
        session.type("\(Programs.pipescope) top --prometheus https://p:9090")
        session.expect("pipescope: https://p:9090 is not a Prometheus URL: https is not supported", "EXIT=1")
    }
}
