import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeMetrics
import PipescopeModel
import PipescopeProbe
import Prometheus
import XCTest

/// `pipescope_lints_total{lint}` on real mistakes: each lint counted once per finding, as
/// `pipescope check` counts them (three sinks dropped in one loop are one finding), every
/// running lint exported from the start at 0.
final class LintsMetricTests: RecordedProbeTestCase {
    func testEachFindingCountsOnce() throws {
        let registry = PrometheusCollectorRegistry()
        var linter = Linter()
        linter.neverCompletesAfter = 0.05  // test-sized, as PipescopeTesting's thresholds
        linter.stalledAfter = 60           // the Future's pipeline is never-completes', not stalled's
        let metrics = PipelineMetrics(probe: probe, factory: PipelineMetrics.prometheusFactory(registry: registry),
                                      linter: linter)
        metrics.start()
        defer { metrics.stop() }
        metrics.publishGauges()
        let zero = MetricsText(registry).samples(PipelineMetrics.lintsName)
        XCTAssertEqual(zero.count, LintRules.all.count, "every lint at 0 before any is found")
        XCTAssertEqual(Set(zero.values), ["0"])

        let subject = PassthroughSubject<Int, Never>()
        for _ in 0..<3 { _ = subject.sink { _ in } }  // one place, three stages: one finding
        _ = subject.map { $0 }.sink { _ in }          // another place: another finding
        let never = Future<Int, Never> { _ in }       // a promise nobody fulfils
        kept = [never.sink { _ in }]
        let deadline = Date() + 30
        recorder.flush()
        while probe.graph.roots.contains(where: { probe.graph[$0]?.location == nil }), Date() < deadline {
            recorder.flush()
        }
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        metrics.publishGauges(now: now + 1_000_000_000)
        let text = MetricsText(registry)
        var expected = zero
        expected["{lint=\"unretained-cancellable\"}"] = "2"
        expected["{lint=\"never-completes\"}"] = "1"
        XCTAssertEqual(text.samples(PipelineMetrics.lintsName), expected, text.text)
        XCTAssertEqual(text.type(of: PipelineMetrics.lintsName), "counter")

        // Judged again later, nothing new: the counter stays.
        recorder.flush()
        metrics.publishGauges(now: now + 3_000_000_000)
        XCTAssertEqual(MetricsText(registry).samples(PipelineMetrics.lintsName), expected)
    }
}

/// The lints are judged on the probe's own graph, before it prunes: with a probe of its
/// own (one probe enabled, as in a program), not the recorded one of the tests above.
final class LintsBeforePruneTests: XCTestCase {
    /// A pipeline made, dropped and pruned within one flush (no ended pipeline kept) is
    /// still counted.
    func testAPipelinePrunedInTheFlushThatBroughtItIsJudged() {
        let probe = Probe(retention: Retention(seconds: 0, maxEndedPipelines: 0, maxEndedInner: 0))
        withMetrics(on: probe) { metrics, registry in
            _ = PassthroughSubject<Int, Never>().sink { _ in }
            // The first flush prunes (none before it): the dropped pipeline goes with it.
            probe.flush()
            XCTAssertEqual(probe.graph.nodes.count, 0, "pruned in the flush that brought it")
            metrics.publishGauges(now: Int64(Date().timeIntervalSince1970 * 1e9))
            let text = MetricsText(registry)
            XCTAssertEqual(text.samples(PipelineMetrics.lintsName)["{lint=\"unretained-cancellable\"}"], "1", text.text)
        }
    }
}
