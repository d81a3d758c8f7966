import PipescopeMetrics
import PipescopeProbe
import Prometheus

/// Runs `body` with `probe` enabled and its metrics counted on a registry of their own,
/// as `PIPESCOPE_METRICS_LISTEN` makes them; stopped and disabled after.
///
/// ```swift
/// withMetrics(on: Probe(locations: false)) { metrics, registry in
///     probe.flush()
///     metrics.publishGauges()
///     MetricsText(registry).samples(PipelineMetrics.valuesName)
/// }
/// ```
func withMetrics<T>(on probe: Probe, _ body: (PipelineMetrics, PrometheusCollectorRegistry) throws -> T) rethrows -> T {
    probe.enable()
    defer { probe.disable() }
    let registry = PrometheusCollectorRegistry()
    let metrics = PipelineMetrics(probe: probe, factory: PipelineMetrics.prometheusFactory(registry: registry))
    metrics.start()
    defer { metrics.stop() }
    return try body(metrics, registry)
}
