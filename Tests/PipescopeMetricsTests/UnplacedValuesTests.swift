import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeMetrics
import PipescopeProbe
import Prometheus
import XCTest

/// Values a pipeline received before the symbol thread placed it are counted at its
/// place once the place arrives, never at `unknown` (which a dashboard would show as a
/// place of its own); with no place to wait for, at `unknown` at once.
final class UnplacedValuesTests: RecordedProbeTestCase {
    func testValuesBeforeThePlaceArrivesAreCountedAtThePlace() throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = PipelineMetrics(probe: probe, factory: PipelineMetrics.prometheusFactory(registry: registry))
        metrics.start()
        defer { metrics.stop() }
        let subject = PassthroughSubject<Int, Never>()
        let made = #line + 1
        kept = [subject.map { $0 + 1 }.sink { _ in }]
        for value in 1...3 { subject.send(value) }
        recorder.flush()
        // A line never run before: its return address is in no cache, so the first flush
        // cannot place it (the symbol thread works after it).
        let root = try XCTUnwrap(probe.graph.roots.last)
        XCTAssertNil(probe.graph[root]?.location, "placed at the first flush: this test would prove nothing")
        metrics.publishGauges()
        XCTAssertEqual(MetricsText(registry).samples(PipelineMetrics.valuesName), [:],
                       "held, not counted at unknown")

        let deadline = Date() + 30
        while probe.graph[root]?.location == nil, Date() < deadline { recorder.flush() }
        recorder.flush()
        metrics.publishGauges()
        let text = MetricsText(registry)
        let place = "UnplacedValuesTests.swift:\(made)"
        XCTAssertEqual(text.samples(PipelineMetrics.valuesName), ["{location=\"\(place)\"}": "3"], text.text)
        XCTAssertEqual(text.samples(PipelineMetrics.stageSecondsName + "_count"), [
            "{operator=\"Map\",location=\"\(place)\"}": "3", "{operator=\"Sink\",location=\"\(place)\"}": "3",
        ], "the stage times held with the values: \(text.text)")
        XCTAssertEqual(text.samples(PipelineMetrics.pipelinesName), ["{location=\"\(place)\",status=\"active\"}": "1.0"])
    }
}

/// With locations off (`PIPESCOPE_LOCATIONS=0`) no place will come: values are counted at
/// `unknown` at the flush that brings them, not held.
final class LocationsOffValuesTests: XCTestCase {
    func testWithLocationsOffValuesAreCountedAtUnknownAtOnce() throws {
        let probe = Probe(locations: false)
        withMetrics(on: probe) { metrics, registry in
            let subject = PassthroughSubject<Int, Never>()
            let kept = subject.sink { _ in }
            subject.send(1)
            subject.send(2)
            _ = probe.flush()
            metrics.publishGauges()
            let text = MetricsText(registry)
            XCTAssertEqual(text.samples(PipelineMetrics.valuesName), ["{location=\"unknown\"}": "2"], text.text)
            XCTAssertEqual(text.samples(PipelineMetrics.pipelinesName), ["{location=\"unknown\",status=\"active\"}": "1.0"])
            withExtendedLifetime(kept) {}
        }
    }
}
