import Foundation
import PipescopeClient
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// `pipescope top --prometheus`' queries against a real Prometheus (Debian's 2.42, as
/// .ci/run installs it) scraping two stand-ins for programs' `/metrics`: the PromQL is
/// valid there, both instances come back with their sums, and the scrape config's
/// relabelling (Fleet.md's convention) gives one of them its `pipescope_probe`.
final class FleetRealPrometheusTests: XCTestCase {
    static let prometheus = "/usr/bin/prometheus"

    /// A program's metrics as PIPESCOPE_METRICS_LISTEN serves them (Prometheus' text format).
    static func metrics(pipelines: Int, waiting: Int, dropped: Int) -> String {
        """
        # TYPE pipescope_pipelines gauge
        pipescope_pipelines{location="Feed.swift:12",status="active"} \(pipelines)
        pipescope_pipelines{location="Cart.swift:40",status="subscribing"} 1
        # TYPE pipescope_pipelines_waiting gauge
        pipescope_pipelines_waiting{reason="demand"} \(waiting)
        pipescope_pipelines_waiting{reason="upstream"} 0
        # TYPE pipescope_events_dropped_total counter
        pipescope_events_dropped_total \(dropped)

        """
    }

    func testTheQueriesReadBothProgramsFromARealPrometheus() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.prometheus) else {
            throw XCTSkip("\(Self.prometheus) is absent: install Debian's prometheus package (apt-get install prometheus), as .ci/run does")
        }
        let local = try FakePrometheus { _ in (200, Self.metrics(pipelines: 3, waiting: 1, dropped: 0)) }
        defer { local.stop() }
        let remote = try FakePrometheus { _ in (200, Self.metrics(pipelines: 250, waiting: 0, dropped: 7)) }
        defer { remote.stop() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: local
                static_configs:
                  - targets: ['127.0.0.1:\(local.port)']
              - job_name: remote
                static_configs:
                  - targets: ['127.0.0.1:\(remote.port)']
                relabel_configs:
                  - source_labels: [__address__]
                    regex: '(.+):\(remote.port)'
                    target_label: pipescope_probe
                    replacement: 'tcp://${1}:7070'

            """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let port = freeTCPPort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.prometheus)
        server.arguments = ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                            "--web.listen-address=127.0.0.1:\(port)"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let client = try PrometheusClient(url: "http://127.0.0.1:\(port)")
        defer { client.shutdown() }
        // Prometheus starts, then scrapes each target once a second: poll until both are in.
        var read = FleetState.Read.failed("never read")
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            read = FleetReader.read(client)
            if case .rows(let rows) = read, rows.count == 2, rows.allSatisfy({ $0.pipelines != nil && $0.dropped != nil }) {
                break
            }
            usleep(200_000)
        }
        guard case .rows(let rows) = read else { return XCTFail("\(read)") }
        let byInstance = Dictionary(uniqueKeysWithValues: rows.map { ($0.instance, $0) })
        let l = try XCTUnwrap(byInstance["127.0.0.1:\(local.port)"], "\(rows)")
        let r = try XCTUnwrap(byInstance["127.0.0.1:\(remote.port)"], "\(rows)")
        XCTAssertEqual([l.job, r.job], ["local", "remote"])
        XCTAssertEqual([l.pipelines, r.pipelines], [4, 251])
        XCTAssertEqual([l.waiting, r.waiting], [1, 0])
        XCTAssertEqual([l.dropped, r.dropped], [0, 7])
        XCTAssertEqual([l.lints, r.lints], [nil, nil], "no pipescope_lints_total series: nothing, not 0")
        XCTAssertEqual(r.reach, .probe("tcp://127.0.0.1:7070"))
        // This test process serves the local one's metrics, and has no Pipescope socket.
        XCTAssertEqual(l.reach, FleetReader.reach(instance: l.instance, probeLabel: nil))
        guard case .unreachable(let why) = l.reach else { return XCTFail("reached \(l.reach)") }
        XCTAssertTrue(why.hasPrefix("pid \(getpid()) listens on port \(local.port)"), why)
    }
}
