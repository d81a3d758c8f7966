import Benchmark
import Foundation
@preconcurrency import OpenCombine
import PipescopeMetrics
import Prometheus

// What the metrics (#46) cost the program: the value path and subscribing with the probe
// flushing every 25 ms, without and with PipelineMetrics counting each flushed batch on
// the flush thread (Pipescope's own registry, as PIPESCOPE_METRICS_LISTEN makes it).
// Nothing of the metrics runs on the sending thread; what they can cost it is the flush
// thread's extra work, on a machine with few cores. See Metrics.md for the figures.

nonisolated(unsafe) var metricsInUse: PipelineMetrics?

/// Starts the metrics on the bench's probe (after `startProbe()`).
func startMetrics() {
    guard let probe = bench.probe else { return }
    let metrics = PipelineMetrics(probe: probe,
                                  factory: PipelineMetrics.prometheusFactory(registry: PrometheusCollectorRegistry()))
    metrics.start()
    metricsInUse = metrics
}

func stopMetrics() {
    metricsInUse?.stop()
    metricsInUse = nil
}

func metricsBenchmarks() {
    for (name, on) in [("off", false), ("on", true)] {
        Benchmark("metrics/value chain, metrics \(name)") { benchmark in
            bench.send(benchmark.scaledIterations, shape: .chain)
        } setup: {
            bench.startProbe()
            if on { startMetrics() }
            bench.buildPipeline(.chain)
        } teardown: {
            stopMetrics()
            bench.stop("chain, metrics \(name)")
        }
        Benchmark("metrics/subscribe+cancel, metrics \(name)") { benchmark in
            let subject = PassthroughSubject<Int, Never>()
            for _ in benchmark.scaledIterations { subscribeAndCancel(subject) }
        } setup: {
            bench.startProbe()
            if on { startMetrics() }
        } teardown: {
            stopMetrics()
            bench.stop("subscribe, metrics \(name)")
        }
    }
}
