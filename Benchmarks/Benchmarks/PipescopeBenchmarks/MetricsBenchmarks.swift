import Benchmark
import Foundation
@preconcurrency import OpenCombine
import PipescopeMetrics
import PipescopeProbe
import Prometheus

// What the metrics (#46) cost the program: the value path and subscribing with the probe
// flushing every 25 ms, without and with PipelineMetrics counting each flushed batch on
// the flush thread (Pipescope's own registry, as PIPESCOPE_METRICS_LISTEN makes it).
// Nothing of the metrics runs on the sending thread; what they can cost it is the flush
// thread's extra work, on a machine with few cores; "metrics/flush" measures that work
// itself, each flush timed alone, per event flushed. See Metrics.md for the figures.

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

/// The flush thread's work per event, timed alone (the program's part is not), divided by
/// the events it folded, with the probe's graph pruned as a running program's is:
/// - values: 10,000 values sent down a `map → filter → sink` chain, then one flush;
/// - subscribes: 2,000 `map → filter → sink` pipelines subscribed and cancelled, then one
///   flush (each new pipeline's lints are judged once).
func flushCostBenchmarks() {
    let perEvent = BenchmarkMetric.custom("flush ns per event", useScalingFactor: false)
    for (name, on) in [("off", false), ("on", true)] {
        for shape in ["values", "subscribes"] {
            Benchmark("metrics/flush per event, \(shape), metrics \(name)",
                      configuration: .init(metrics: [perEvent], warmupIterations: 5, scalingFactor: .one,
                                           maxDuration: .seconds(20), maxIterations: 300)) { benchmark in
                guard let probe = bench.probe else { return }
                if shape == "values" {
                    bench.send(0..<10_000, shape: .chain)
                } else {
                    let subject = PassthroughSubject<Int, Never>()
                    for _ in 0..<2_000 { subscribeAndCancel(subject) }
                }
                let start = ContinuousClock.now
                let batch = probe.flush()
                let took = ContinuousClock.now - start
                let nanos = took.components.seconds * 1_000_000_000 + took.components.attoseconds / 1_000_000_000
                benchmark.measurement(perEvent, Int(nanos) / max(1, batch.events.count))
            } setup: {
                let probe = Probe()
                probe.enable()
                bench.probe = probe
                if on { startMetrics() }
                bench.buildPipeline(.chain)
                probe.flush()
            } teardown: {
                stopMetrics()
                bench.stop("flush \(shape), metrics \(name)")
            }
        }
    }
}
