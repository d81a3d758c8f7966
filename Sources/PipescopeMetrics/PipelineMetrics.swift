import CoreMetrics
import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeProbe
import Prometheus
import Synchronization

/// A program's pipeline health as swift-metrics: how many pipelines live at each place,
/// how many wait and on what, which lints found what, how long each stage's own code
/// takes per value, how many values reach each place's sinks, how many events the probe
/// dropped.
///
/// **Which thread, how often.** Nothing runs on the program's threads: the tap records as
/// before, and the metrics are made from what the probe already does on its own thread.
/// The counters and the stage-time histogram are counted from each flushed batch (the
/// probe's flush observer, ``Probe/onFlush(_:)``), the gauges recomputed from the probe's
/// graph about once a second on the same thread (``publishGauges(now:)``, which a test
/// may also call), and the lints judged on the probe's graph, around each fold and then
/// (``LintCounts``: no second graph, no second fold). A value or stage time of a pipeline the symbol thread has not placed yet
/// is held until its place comes (``Unplaced``), not counted at `unknown`.
///
/// **Where they go.** With no `factory`, to the program's own `MetricsSystem`, whichever
/// it bootstraps, even after Pipescope started (until it does, nothing is made: the
/// global NOOP factory is never captured). With a factory (``prometheusFactory(registry:)``
/// for Pipescope's own registry), to it alone: `MetricsSystem.bootstrap` is never called,
/// so a program's own later bootstrap still works.
///
/// **Bounded.** Labels are capped (``MetricsLimits``): a program making pipelines at
/// 10,000 places exports at most `limits.locations` of them and `other`.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// let metrics = PipelineMetrics(probe: probe, factory: PipelineMetrics.prometheusFactory(registry: registry))
/// metrics.start()
/// // …
/// registry.emitToString()   // pipescope_pipelines{location="Feed.swift:12",status="active"} 3 …
/// ```
public final class PipelineMetrics: Sendable {
    // MARK: - Names

    public static let pipelinesName = "pipescope_pipelines"
    public static let waitingName = "pipescope_pipelines_waiting"
    public static let stageSecondsName = "pipescope_stage_seconds"
    public static let valuesName = "pipescope_values_total"
    public static let droppedName = "pipescope_events_dropped_total"
    public static let lintsName = "pipescope_lints_total"

    /// The stage-time histogram's buckets: a stage's own code per value takes microseconds
    /// when well, so the default Prometheus timer buckets (5 ms and up) would put every
    /// value in the first.
    public static let stageBuckets: [Duration] = [
        .microseconds(1), .microseconds(10), .microseconds(100), .milliseconds(1), .milliseconds(10),
        .milliseconds(100), .seconds(1),
    ]

    /// A factory on `registry` that gives the stage-time histogram ``stageBuckets``.
    public static func prometheusFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[stageSecondsName] = stageBuckets
        return factory
    }

    // MARK: - State

    public let probe: Probe
    public let limits: MetricsLimits
    private let factory: (any MetricsFactory)?

    /// Label caps and what the gauges showed last: taken briefly, never while calling out.
    private struct Labels {
        var locations: LabelCap
        var operators: LabelCap
        var stages: LabelCap
        /// The `pipescope_pipelines` series set last time, to zero those that went.
        var shown: Set<PipelineHealth.Place> = []
        var lastGauges: Int64 = 0
    }

    private let labels: Mutex<Labels>
    /// A leaf lock: held while the handles are made and updated (the backend's code), and
    /// no other lock is taken under it.
    private let handles = Mutex<MetricHandles?>(nil)
    /// Values and times of stages not placed yet. Only the flush observer takes it, and
    /// it reads the probe's graph under it (so: this lock, then the probe's).
    private let unplaced = Mutex(Unplaced())
    /// The run's findings, for `pipescope_lints_total`, judged on the probe's graph.
    private let lints: LintCounts

    /// `factory`: nil for the program's global `MetricsSystem`; one of its own otherwise.
    /// `linter`: the lints counted in `pipescope_lints_total`, with their thresholds (a
    /// live program's by default, as the inspector's).
    public init(probe: Probe, factory: (any MetricsFactory)? = nil, limits: MetricsLimits = .standard,
                linter: Linter = Linter()) {
        self.probe = probe
        self.factory = factory
        self.limits = limits
        let own = factory != nil
        lints = LintCounts(linter: linter, hasBackend: { Self.hasBackend(ownFactory: own) })
        labels = Mutex(Labels(locations: LabelCap(limit: limits.locations), operators: LabelCap(limit: limits.operators),
                              stages: LabelCap(limit: limits.stages)))
    }

    /// Counts every batch flushed from now on, and publishes the gauges about once a second.
    public func start() {
        probe.watchFolds(lints)
        probe.onFlush { [weak self] batch in self?.flushed(batch) }
    }

    /// Stops counting (the probe keeps flushing).
    public func stop() {
        probe.onFlush(nil)
        probe.watchFolds(nil)
    }

    // MARK: - Counting a batch

    /// One (operator, location) pair, before or after the caps.
    struct StagePair: Hashable {
        var operatorName: String
        var location: String
    }

    /// Counts one flushed batch; publishes the gauges too when a second has passed.
    func flushed(_ batch: EventBatch) {
        // A program with no backend (the global NOOP system) pays one check per flush.
        guard hasBackend else { return }
        let now = Self.wallNanos()
        // The gauges first: they give the places of the graph their labels in the order
        // the pipelines were made, before this batch's values do in theirs.
        if labels.withLock({ now - $0.lastGauges >= 1_000_000_000 }) { publishGauges(now: now) }
        // After the flush, so it says whether the stages this batch brought wait for a
        // place (the symbol thread's results only change it at a flush).
        let pending = probe.locationsPending
        // Read under the probe's lock, in place, into plain numbers: no call out under it.
        // Places and pairs in the order the batch first names them (for the caps).
        var counts = BatchCounts()
        unplaced.withLock { unplaced in
            probe.withGraph { graph in
                // By stage first (integer keys), then each stage's place and pair read once:
                // a place's text is made per stage, not per value (per value it was most
                // of the flush thread's time with the metrics on).
                var byStage = StageCounts()
                for event in batch.events where event.kind == .value || event.kind == .delivered {
                    guard let node = graph[event.node] else { continue }
                    if event.kind == .value, node.parent == nil { byStage.addValue(event.node) }
                    if event.selfNanos > 0 { byStage.addTime(event.node, event.selfNanos) }
                }
                for (stage, isValue) in byStage.order {
                    if isValue {
                        let n = byStage.values[stage] ?? 0
                        // A pipeline not placed yet: held until its place comes (Unplaced).
                        if let location = graph[stage]?.location?.short {
                            counts.add(location, n)
                        } else if !(pending && unplaced.holdValue(root: stage, count: n, now: now)) {
                            counts.add(PipelineHealth.unknown, n)
                        }
                        continue
                    }
                    guard let pair = Self.stagePair(of: stage, in: graph) else { continue }
                    for nanos in byStage.times[stage] ?? [] {
                        if pair.location == PipelineHealth.unknown, pending,
                           unplaced.holdTime(stage: stage, operatorName: pair.operatorName, nanos: nanos, now: now) {
                            continue
                        }
                        counts.add(pair, nanos)
                    }
                }
                guard !unplaced.isEmpty else { return }
                let settled = unplaced.settle(in: graph, pending: pending, now: now)
                for (location, n) in settled.values { counts.add(location, n) }
                for (pair, nanos) in settled.times { for n in nanos { counts.add(pair, n) } }
            }
        }
        let (labelledValues, labelledTimes) = labels.withLock { labels in
            var labelledValues: [String: Int64] = [:]
            for (location, n) in counts.values { labelledValues[labels.locations.label(location), default: 0] += n }
            var labelledTimes: [StagePair: [Int64]] = [:]
            for (pair, nanos) in counts.times { labelledTimes[Self.capped(pair, &labels), default: []] += nanos }
            return (labelledValues, labelledTimes)
        }
        let dropped = batch.trailer.droppedSinceLast
        withHandles { handles in
            for (location, n) in labelledValues {
                handles.counter(Self.valuesName, [("location", location)]).increment(by: n)
            }
            for (pair, nanos) in labelledTimes {
                let timer = handles.timer(Self.stageSecondsName, [("operator", pair.operatorName), ("location", pair.location)])
                for n in nanos { timer.recordNanoseconds(n) }
            }
            if dropped > 0 { handles.counter(Self.droppedName).increment(by: Int64(clamping: dropped)) }
        }
    }

    /// One batch's values by root and own times by stage, and the order the batch first
    /// names each (a root's value, or a stage's time), for the caps.
    private struct StageCounts {
        var values: [NodeID: Int64] = [:]
        var times: [NodeID: [Int64]] = [:]
        var order: [(stage: NodeID, isValue: Bool)] = []

        mutating func addValue(_ root: NodeID) {
            if values[root] == nil { order.append((root, true)) }
            values[root, default: 0] += 1
        }

        mutating func addTime(_ stage: NodeID, _ nanos: Int64) {
            if times[stage] == nil { order.append((stage, false)) }
            times[stage, default: []].append(nanos)
        }
    }

    /// One batch's values by place and stage times by pair, in the order first named.
    private struct BatchCounts {
        var values: [(location: String, count: Int64)] = []
        var valueIndex: [String: Int] = [:]
        var times: [(pair: StagePair, nanos: [Int64])] = []
        var timeIndex: [StagePair: Int] = [:]

        mutating func add(_ location: String, _ n: Int64) {
            if let i = valueIndex[location] { values[i].count += n } else {
                valueIndex[location] = values.count
                values.append((location, n))
            }
        }

        mutating func add(_ pair: StagePair, _ nanos: Int64) {
            if let i = timeIndex[pair] { times[i].nanos.append(nanos) } else {
                timeIndex[pair] = times.count
                times.append((pair, [nanos]))
            }
        }
    }

    /// The stage a value's own time is charged to (as the tree charges it), by operator
    /// (the sink's type for a sink) and where its pipeline was made.
    static func stagePair(of node: NodeID, in graph: Graph) -> StagePair? {
        guard let (stage, sink) = graph.timedStage(of: node), let summary = graph[stage] else { return nil }
        let name = sink ? typeName(summary.subscriber) : summary.operatorName
        return StagePair(operatorName: name, location: graph.location(of: stage)?.location.short ?? PipelineHealth.unknown)
    }

    /// "Sink<Int, Never>" → "Sink": a sink's type without its generic arguments, as the
    /// operators are named.
    static func typeName(_ subscriber: String) -> String {
        let name = subscriber.prefix { $0 != "<" && $0 != "(" && $0 != " " }
        return name.isEmpty ? "Sink" : String(name)
    }

    /// A pair's labels under the caps: its location and operator as capped, and the whole
    /// pair folded into (other, other) once `limits.stages` pairs have their own.
    private static func capped(_ pair: StagePair, _ labels: inout Labels) -> StagePair {
        let capped = StagePair(operatorName: labels.operators.label(pair.operatorName),
                               location: labels.locations.label(pair.location))
        let key = capped.operatorName + "\u{1F}" + capped.location
        if labels.stages.label(key) == LabelCap.other { return StagePair(operatorName: LabelCap.other, location: LabelCap.other) }
        return capped
    }

    // MARK: - The gauges

    /// Recomputes the gauges from the probe's graph as of its last flush, and counts the
    /// findings new since last time: the flush thread does so about once a second; a test
    /// calls it after flushing, with a `now` past the wait (or lint) threshold.
    public func publishGauges(now: Int64? = nil) {
        guard hasBackend else { return }
        let now = now ?? Self.wallNanos()
        let waitAfter = limits.waitAfter
        let pending = probe.locationsPending
        let health = probe.withGraph { PipelineHealth($0, now: now, waitAfter: waitAfter, placesPending: pending) }
        let lintKinds = lints.kinds
        let newFindings = probe.withWatchedGraph(by: lints) { lints.judge(now: now, graph: &$0) } ?? [:]
        let (shown, gone) = labels.withLock { labels in
            var label: [String: String] = [:]
            for place in health.places { label[place] = labels.locations.label(place) }
            var shown: [PipelineHealth.Place: Int] = [:]
            for (place, n) in health.pipelines {
                let location = label[place.location] ?? labels.locations.label(place.location)
                shown[PipelineHealth.Place(location: location, status: place.status), default: 0] += n
            }
            let gone = labels.shown.subtracting(shown.keys)
            labels.shown = Set(shown.keys)
            labels.lastGauges = now
            return (shown, gone)
        }
        withHandles { handles in
            for (place, n) in shown {
                handles.gauge(Self.pipelinesName, [("location", place.location), ("status", place.status.rawValue)])
                    .record(n)
            }
            for place in gone {
                handles.gauge(Self.pipelinesName, [("location", place.location), ("status", place.status.rawValue)])
                    .record(0)
            }
            for reason in WaitReason.allCases {
                handles.gauge(Self.waitingName, [("reason", reason.rawValue)]).record(health.waiting[reason] ?? 0)
            }
            // Made at 0, so a scrape shows them before anything is dropped or found.
            _ = handles.counter(Self.droppedName)
            for kind in lintKinds {
                let counter = handles.counter(Self.lintsName, [("lint", kind.rawValue)])
                if let n = newFindings[kind] { counter.increment(by: Int64(n)) }
            }
        }
    }

    /// Whether anything receives the metrics: a factory of their own, or a global system
    /// the program bootstrapped.
    private var hasBackend: Bool { Self.hasBackend(ownFactory: factory != nil) }

    private static func hasBackend(ownFactory: Bool) -> Bool {
        ownFactory || !(MetricsSystem.factory is NOOPMetricsHandler)
    }

    /// Runs `body` with the handles on the factory, made on first use; nothing while the
    /// global system is still the NOOP one (a program bootstraps it later, or never).
    private func withHandles(_ body: (inout MetricHandles) -> Void) {
        handles.withLock { handles in
            if handles == nil {
                let factory = self.factory ?? MetricsSystem.factory
                if factory is NOOPMetricsHandler { return }
                handles = MetricHandles(factory: factory)
            }
            body(&handles!)
        }
    }

    static func wallNanos() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e9) }
}
