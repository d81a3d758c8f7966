import CoreMetrics
import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeMetrics
import Prometheus
import XCTest

/// The metrics of real OpenCombine pipelines under an in-process probe, read as a scrape
/// reads them: the registry's Prometheus text, every series and value exact.
final class PipelineMetricsTests: RecordedProbeTestCase {
    private var registry: PrometheusCollectorRegistry!
    private var metrics: PipelineMetrics!
    private let second: Int64 = 1_000_000_000

    override func tearDown() {
        metrics?.stop()
        super.tearDown()
    }

    /// Starts counting, after ``settleLocations()``: a pipeline the symbol thread has not
    /// placed yet would be counted at `unknown` (a series at 0 once placed).
    private func start(limits: MetricsLimits = .standard) {
        registry = PrometheusCollectorRegistry()
        metrics = PipelineMetrics(probe: probe, factory: PipelineMetrics.prometheusFactory(registry: registry),
                                  limits: limits)
        metrics.start()
    }

    /// Flushes until every root has its location (the symbol thread places a pipeline a
    /// flush or more after it was made), so the values sent next count at their place.
    private func settleLocations(file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date() + 30
        recorder.flush()
        while probe.graph.roots.contains(where: { probe.graph[$0]?.location == nil }), Date() < deadline {
            recorder.flush()
        }
        XCTAssertFalse(probe.graph.roots.contains(where: { probe.graph[$0]?.location == nil }),
                       "every pipeline placed within 30 s", file: file, line: line)
    }

    private func place(_ line: Int) -> String { "PipelineMetricsTests.swift:\(line)" }

    func testTwoPipelinesAtTwoPlacesAreCountedAtEach() throws {
        let subject = PassthroughSubject<Int, Never>()
        let mapped = #line + 1
        let a = subject.map { $0 * 2 }.sink { _ in }
        let plain = #line + 1
        let b = subject.sink { _ in }
        settleLocations()
        start()
        for value in 1...3 { subject.send(value) }
        recorder.flush()
        metrics.publishGauges()
        let text = MetricsText(registry)

        XCTAssertEqual(text.samples(PipelineMetrics.pipelinesName), [
            "{location=\"\(place(mapped))\",status=\"active\"}": "1.0",
            "{location=\"\(place(plain))\",status=\"active\"}": "1.0",
        ], text.text)
        XCTAssertEqual(text.samples(PipelineMetrics.valuesName), [
            "{location=\"\(place(mapped))\"}": "3",
            "{location=\"\(place(plain))\"}": "3",
        ], "the values each pipeline's sink received")
        XCTAssertEqual(text.samples(PipelineMetrics.waitingName), [
            "{reason=\"upstream\"}": "0.0", "{reason=\"demand\"}": "0.0", "{reason=\"subscription\"}": "0.0",
        ], "a subject's pipelines with unlimited demand, just sent to, wait for nothing")
        XCTAssertEqual(text.samples(PipelineMetrics.droppedName), ["": "0"])
        // A value's own time is the code that received it: the map's closure for the
        // subject's values under it, each sink's for what reached it.
        XCTAssertEqual(text.samples(PipelineMetrics.stageSecondsName + "_count"), [
            "{operator=\"Map\",location=\"\(place(mapped))\"}": "3",
            "{operator=\"Sink\",location=\"\(place(mapped))\"}": "3",
            "{operator=\"Sink\",location=\"\(place(plain))\"}": "3",
        ], text.text)
        XCTAssertEqual(text.type(of: PipelineMetrics.pipelinesName), "gauge")
        XCTAssertEqual(text.type(of: PipelineMetrics.waitingName), "gauge")
        XCTAssertEqual(text.type(of: PipelineMetrics.valuesName), "counter")
        XCTAssertEqual(text.type(of: PipelineMetrics.droppedName), "counter")
        XCTAssertEqual(text.type(of: PipelineMetrics.stageSecondsName), "histogram")

        // Ended pipelines are no longer live: their series go to 0, the counters stay.
        a.cancel()
        b.cancel()
        recorder.flush()
        metrics.publishGauges()
        let after = MetricsText(registry)
        XCTAssertEqual(after.samples(PipelineMetrics.pipelinesName), [
            "{location=\"\(place(mapped))\",status=\"active\"}": "0.0",
            "{location=\"\(place(plain))\",status=\"active\"}": "0.0",
        ])
        XCTAssertEqual(after.samples(PipelineMetrics.valuesName).values.sorted(), ["3", "3"])
    }

    func testAPipelineHeldOnDemandIsCountedAsWaitingForDemand() throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        let made = #line + 1
        subject.subscribe(subscriber)
        settleLocations()
        start()
        subject.send(1)
        recorder.flush()
        let root = try XCTUnwrap(probe.graph.roots.first)
        let delivered = try XCTUnwrap(probe.graph[root]?.lastValueNanos)
        metrics.publishGauges(now: delivered + 1 * second)
        XCTAssertEqual(MetricsText(registry).samples(PipelineMetrics.waitingName)["{reason=\"demand\"}"], "0.0",
                       "not past the 2 s threshold yet")
        metrics.publishGauges(now: delivered + 3 * second)
        let text = MetricsText(registry)
        XCTAssertEqual(text.samples(PipelineMetrics.waitingName), [
            "{reason=\"upstream\"}": "0.0", "{reason=\"demand\"}": "1.0", "{reason=\"subscription\"}": "0.0",
        ], text.text)
        XCTAssertEqual(text.samples(PipelineMetrics.pipelinesName), [
            "{location=\"\(place(made))\",status=\"active\"}": "1.0",
        ])
        XCTAssertEqual(text.samples(PipelineMetrics.valuesName), ["{location=\"\(place(made))\"}": "1"])
        withExtendedLifetime(subscriber) {}
    }

    /// Five places with a cap of three: three keep their series (the first seen), the
    /// other two share `other`.
    func testPlacesPastTheCapAreFoldedIntoOther() throws {
        let subject = PassthroughSubject<Int, Never>()
        let first = #line + 2
        let makers: [() -> AnyCancellable] = [
            { subject.sink { _ in } },
            { subject.sink { _ in } },
            { subject.sink { _ in } },
            { subject.sink { _ in } },
            { subject.sink { _ in } },
        ]
        // Two pipelines at each place: ten in all.
        kept = makers.flatMap { make in [make(), make()] }
        settleLocations()
        start(limits: MetricsLimits(locations: 3))
        subject.send(7)
        recorder.flush()
        metrics.publishGauges()
        let text = MetricsText(registry)
        let pipelines = text.samples(PipelineMetrics.pipelinesName)
        XCTAssertEqual(pipelines.count, 3 + 1, text.text)
        XCTAssertEqual(pipelines["{location=\"other\",status=\"active\"}"], "4.0", "the last two places, two pipelines each")
        let kept = Set(pipelines.keys).subtracting(["{location=\"other\",status=\"active\"}"])
        XCTAssertEqual(kept, Set((first..<first + 3).map { "{location=\"\(place($0))\",status=\"active\"}" }),
                       "the first three places seen keep their own series")
        for series in kept { XCTAssertEqual(pipelines[series], "2.0") }
        let values = text.samples(PipelineMetrics.valuesName)
        XCTAssertEqual(values.count, 3 + 1)
        XCTAssertEqual(values["{location=\"other\"}"], "4")
        XCTAssertEqual(text.samples(PipelineMetrics.stageSecondsName + "_count").count, 3 + 1,
                       "the sinks' time at the three places kept, and at other")
    }
}

/// A program that bootstraps its own `MetricsSystem` after Pipescope's metrics started
/// gets them in its backend from then on; before, nothing is made (the global NOOP factory
/// is never captured). The only test that bootstraps the global system: it can be done
/// once per process.
final class GlobalMetricsSystemTests: RecordedProbeTestCase {
    func testMetricsReachTheBackendAProgramBootstrapsLater() throws {
        let metrics = PipelineMetrics(probe: probe)
        metrics.start()
        defer { metrics.stop() }
        let subject = PassthroughSubject<Int, Never>()
        kept = [subject.sink { _ in }]
        subject.send(1)
        recorder.flush()
        let registry = PrometheusCollectorRegistry()
        XCTAssertEqual(registry.emitToString(), "")
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        subject.send(2)
        // Counted once the pipeline is placed (held until then, not counted at unknown).
        let deadline = Date() + 30
        recorder.flush()
        while probe.graph.roots.contains(where: { probe.graph[$0]?.location == nil }), Date() < deadline {
            recorder.flush()
        }
        metrics.publishGauges()
        let text = MetricsText(registry)
        XCTAssertEqual(text.samples(PipelineMetrics.pipelinesName).values.sorted(), ["1.0"], text.text)
        XCTAssertEqual(text.samples(PipelineMetrics.valuesName).values.sorted(), ["1"],
                       "the value sent after the bootstrap; the one before was counted by nobody")
        XCTAssertEqual(text.samples(PipelineMetrics.droppedName), ["": "0"])
    }
}
