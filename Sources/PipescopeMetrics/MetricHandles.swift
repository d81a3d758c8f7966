import CoreMetrics

/// The swift-metrics handles made so far, by label and dimensions, so that each series is
/// made once against its factory, not at every flush. Only the metrics' own thread
/// (the probe's flush) and ``PipelineMetrics/publishGauges(now:)`` use it, one at a time.
struct MetricHandles {
    struct Key: Hashable {
        var label: String
        var dimensions: [String]
    }

    let factory: any MetricsFactory
    private var counters: [Key: Counter] = [:]
    private var gauges: [Key: Gauge] = [:]
    private var timers: [Key: CoreMetrics.Timer] = [:]

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    mutating func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Counter {
        let key = Key(label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
        if let counter = counters[key] { return counter }
        let counter = Counter(label: label, dimensions: dimensions, factory: factory)
        counters[key] = counter
        return counter
    }

    mutating func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> Gauge {
        let key = Key(label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
        if let gauge = gauges[key] { return gauge }
        let gauge = Gauge(label: label, dimensions: dimensions, factory: factory)
        gauges[key] = gauge
        return gauge
    }

    mutating func timer(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        let key = Key(label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
        if let timer = timers[key] { return timer }
        let timer = CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
        timers[key] = timer
        return timer
    }
}
