import Foundation
import PipescopeTestSupport
import XCTest

/// The Prometheus config and alerts in Fleet.md, as written there, checked by Debian's
/// `promtool` (installed with the `prometheus` package by .ci/run): the config and the
/// rules load, and each alert fires on the series it is for and stays quiet on the others.
final class FleetDocsTests: XCTestCase {
    static let promtool = "/usr/bin/promtool"
    static let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Pipescope/Pipescope.docc/Fleet.md")

    private var directory: String!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.promtool) else {
            throw XCTSkip("\(Self.promtool) is absent: install Debian's prometheus package (apt-get install prometheus), as .ci/run does")
        }
        directory = makeTemporaryDirectory()
    }

    override func tearDown() { if let directory { try? FileManager.default.removeItem(atPath: directory) } }

    /// The article's ```yaml blocks, in order: the scrape config, then the rules.
    private func blocks() throws -> (config: String, rules: String) {
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let parts = text.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        XCTAssertEqual(parts.count, 2, "Fleet.md has the scrape config and the rules as its two yaml blocks")
        return (parts.first ?? "", parts.dropFirst().first ?? "")
    }

    /// promtool resolves the files a config or a test names from that file's directory.
    private func promtool(_ arguments: [String]) throws -> Programs.Output {
        try Programs.run(Self.promtool, arguments)
    }

    func testTheScrapeConfigAndTheRulesLoad() throws {
        let (config, rules) = try blocks()
        // The config names a token file and the rules file; promtool opens both.
        let token = directory + "/pipescope-token"
        try "secret\n".write(toFile: token, atomically: true, encoding: .utf8)
        try rules.write(toFile: directory + "/pipescope-alerts.yml", atomically: true, encoding: .utf8)
        try config.replacingOccurrences(of: "/etc/prometheus/pipescope-token", with: token)
            .write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let checked = try promtool(["check", "config", directory + "/prometheus.yml"])
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
        XCTAssertTrue(checked.stdout.contains("SUCCESS: 3 rules found"), checked.stdout)
    }

    func testEachAlertFiresOnItsSeriesAndNotOnTheOthers() throws {
        let (_, rules) = try blocks()
        try rules.write(toFile: directory + "/pipescope-alerts.yml", atomically: true, encoding: .utf8)
        try Self.unitTests.write(toFile: directory + "/test.yml", atomically: true, encoding: .utf8)
        let tested = try promtool(["test", "rules", directory + "/test.yml"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("SUCCESS"), tested.stdout)
    }

    /// `promtool test rules` input: series as the metrics make them, one minute apart.
    static let unitTests = #"""
rule_files:
  - pipescope-alerts.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'pipescope_pipelines{instance="a:9464",job="shop",location="Feed.swift:12",status="active"}'
        values: '0+5x90'
      - series: 'pipescope_pipelines{instance="a:9464",job="shop",location="Cart.swift:40",status="active"}'
        values: '500x90'
      - series: 'pipescope_pipelines{instance="a:9464",job="shop",location="Search.swift:7",status="active"}'
        values: '0+10x20 200x70'
      - series: 'pipescope_pipelines_waiting{instance="a:9464",job="shop",reason="demand"}'
        values: '1x90'
      - series: 'pipescope_pipelines_waiting{instance="a:9464",job="shop",reason="upstream"}'
        values: '5x90'
      - series: 'pipescope_pipelines_waiting{instance="a:9464",job="shop",reason="subscription"}'
        values: '1 1 1 1 1 1 0 1 1 1 1 1 1 1 0 1 1 1 1 1 1 1 0 1 1 1 1 1 1 1'
    alert_rule_test:
      - eval_time: 15m
        alertname: PipelinesPilingUp
      - eval_time: 60m
        alertname: PipelinesPilingUp
        exp_alerts:
          - exp_labels: {severity: warning, instance: "a:9464", job: shop, location: "Feed.swift:12"}
            exp_annotations:
              summary: "a:9464: pipelines made at Feed.swift:12 keep piling up"
              description: "pipescope top --prometheus, Enter on the program, then the table's LOCATION column."
      - eval_time: 9m
        alertname: PipelinesWaitingOnDemandOrSubscription
      - eval_time: 25m
        alertname: PipelinesWaitingOnDemandOrSubscription
        exp_alerts:
          - exp_labels: {severity: warning, instance: "a:9464", job: shop, reason: demand}
            exp_annotations:
              summary: "a:9464: pipelines have waited on demand for 10 minutes"
              description: "Attach (pipescope top --prometheus, Enter) and sort the table by WAIT to see which."
  - interval: 1m
    input_series:
      # A map taking 10-100 ms a value, 2 values a second.
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Map",location="Feed.swift:12",le="0.01"}'
        values: '0x40'
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Map",location="Feed.swift:12",le="0.1"}'
        values: '0+120x40'
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Map",location="Feed.swift:12",le="+Inf"}'
        values: '0+120x40'
      - series: 'pipescope_stage_seconds_count{instance="a:9464",job="shop",operator="Map",location="Feed.swift:12"}'
        values: '0+120x40'
      # A filter as slow, but once every two seconds: too few values to page anyone.
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Filter",location="Feed.swift:13",le="0.01"}'
        values: '0x40'
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Filter",location="Feed.swift:13",le="0.1"}'
        values: '0+30x40'
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Filter",location="Feed.swift:13",le="+Inf"}'
        values: '0+30x40'
      - series: 'pipescope_stage_seconds_count{instance="a:9464",job="shop",operator="Filter",location="Feed.swift:13"}'
        values: '0+30x40'
      # A sink well under 10 ms.
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Sink",location="Feed.swift:14",le="0.01"}'
        values: '0+600x40'
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Sink",location="Feed.swift:14",le="0.1"}'
        values: '0+600x40'
      - series: 'pipescope_stage_seconds_bucket{instance="a:9464",job="shop",operator="Sink",location="Feed.swift:14",le="+Inf"}'
        values: '0+600x40'
      - series: 'pipescope_stage_seconds_count{instance="a:9464",job="shop",operator="Sink",location="Feed.swift:14"}'
        values: '0+600x40'
    alert_rule_test:
      - eval_time: 8m
        alertname: SlowPipelineStage
      - eval_time: 20m
        alertname: SlowPipelineStage
        exp_alerts:
          - exp_labels: {severity: warning, instance: "a:9464", job: shop, operator: Map, location: "Feed.swift:12"}
            exp_annotations:
              summary: "a:9464: Map at Feed.swift:12 takes over 10 ms per value (p99)"
"""#
}
