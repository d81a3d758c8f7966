import Foundation
import PipescopeTestSupport
import XCTest

/// `PIPESCOPE_METRICS_LISTEN` on a real program (pipescope-example), scraped with curl as
/// Prometheus would: the six metrics with their `# TYPE` lines, the example's pipeline
/// at its place, and the token rules of `PIPESCOPE_LISTEN`.
final class MetricsEndpointTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// curl's status code and body for `url`.
    private func curl(_ url: String, _ extra: [String] = []) throws -> (code: String, body: String) {
        let out = try Programs.run("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + extra + [url], timeout: 10)
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    /// Sums a metric's samples (every label set) in a scrape.
    private func sum(_ name: String, in body: String) -> Double {
        body.split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }

    func testAProgramServesItsPipelinesHealthAtSlashMetrics() throws {
        let port = freeTCPPort()
        // Five values: 2 and 4 pass the example's filter; ["a", "b", "c"] sends three more.
        let program = try ExampleProgram(socketPath: directory + "/m.sock", environment: [
            "PIPESCOPE_METRICS_LISTEN": "127.0.0.1:\(port)", "EXAMPLE_SEND_LIMIT": "5",
        ])
        defer { program.stop() }
        let url = "http://127.0.0.1:\(port)/metrics"
        // The example's map.filter.sink is made at main.swift:25; its place follows from the
        // symbol thread, and the gauges are recomputed about once a second.
        let placed = "pipescope_pipelines{location=\"main.swift:25\",status=\"active\"} 1.0"
        let deadline = Date() + 30
        var scrape = try curl(url)
        while !(scrape.body.contains(placed) && sum("pipescope_values_total", in: scrape.body) == 5), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            scrape = try curl(url)
        }
        XCTAssertEqual(scrape.code, "200")
        XCTAssertTrue(scrape.body.contains(placed), scrape.body)
        for (name, type) in [("pipescope_pipelines", "gauge"), ("pipescope_pipelines_waiting", "gauge"),
                             ("pipescope_lints_total", "counter"),
                             ("pipescope_stage_seconds", "histogram"), ("pipescope_values_total", "counter"),
                             ("pipescope_events_dropped_total", "counter")] {
            XCTAssertTrue(scrape.body.contains("# TYPE \(name) \(type)\n"), "\(name) \(type)\n\(scrape.body)")
        }
        XCTAssertEqual(sum("pipescope_values_total", in: scrape.body), 5, "the values the sinks received")
        XCTAssertEqual(sum("pipescope_events_dropped_total", in: scrape.body), 0)
        // The subject's pipeline may wait for upstream once it has been idle 2 s (a slow
        // machine's scrape); nothing ever waits on demand or a subscription here.
        XCTAssertTrue(scrape.body.contains("pipescope_pipelines_waiting{reason=\"demand\"} 0.0\n"), scrape.body)
        XCTAssertTrue(scrape.body.contains("pipescope_pipelines_waiting{reason=\"subscription\"} 0.0\n"), scrape.body)
        XCTAssertEqual(try curl("http://127.0.0.1:\(port)/other").code, "404")
        XCTAssertTrue(program.process.isRunning)
    }

    func testANonLoopbackMetricsListenerRefusesToStartWithoutAToken() throws {
        let out = try Programs.run(Programs.example, [], environment: [
            "PIPESCOPE_SOCKET": directory + "/open.sock", "PIPESCOPE_METRICS_LISTEN": "0.0.0.0:\(freeTCPPort())",
        ], timeout: 20)
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("PIPESCOPE_METRICS_LISTEN=0.0.0.0:"), out.stderr)
        XCTAssertTrue(out.stderr.contains("needs PIPESCOPE_TOKEN"), out.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/open.sock"), "nothing is served")
    }

    func testWithATokenEveryScrapeMustPresentIt() throws {
        let port = freeTCPPort()
        let program = try ExampleProgram(socketPath: directory + "/t.sock", environment: [
            "PIPESCOPE_METRICS_LISTEN": "0.0.0.0:\(port)", "PIPESCOPE_TOKEN": "s3cret",
        ])
        defer { program.stop() }
        let url = "http://127.0.0.1:\(port)/metrics"
        XCTAssertEqual(try curl(url).code, "401")
        XCTAssertEqual(try curl(url, ["-H", "Authorization: Bearer guess"]).code, "401")
        var right = try curl(url, ["-H", "Authorization: Bearer s3cret"])
        // pipescope_pipelines has its first series once the symbol thread placed a pipeline.
        let deadline = Date() + 30
        while right.code == "200", !right.body.contains("# TYPE pipescope_pipelines gauge"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            right = try curl(url, ["-H", "Authorization: Bearer s3cret"])
        }
        XCTAssertEqual(right.code, "200")
        XCTAssertTrue(right.body.contains("# TYPE pipescope_pipelines gauge"), right.body)
    }
}
