/// How many label values each label of the metrics may have before the rest fold into
/// `other` (see ``LabelCap``), and when a pipeline counts as waiting.
///
/// The series a program exports are then at most, whatever it does (`other` for the
/// folded values, and `unknown` for pipelines not placed yet, each one more):
/// - `pipescope_pipelines`: (`locations` + 2) × 2 statuses (subscribing, active);
/// - `pipescope_pipelines_waiting`: 3 reasons;
/// - `pipescope_values_total`: `locations` + 2;
/// - `pipescope_stage_seconds`: `stages` + 1 (operator, location) pairs, each a histogram of
///   ``PipelineMetrics/stageBuckets`` buckets; the pairs' locations are among the
///   `locations` kept (a pair at a folded place has location `other`), and their operators
///   among the `operators` kept;
/// - `pipescope_events_dropped_total`: 1;
/// - `pipescope_lints_total`: one per running lint (``LintRules/all``: 13).
///
/// With the standard limits: 204 + 3 + 102 + 129 + 1 + 13 = 452 series (histograms counted
/// once).
///
/// ```swift
/// let metrics = PipelineMetrics(probe: probe, limits: MetricsLimits(locations: 20))
/// ```
public struct MetricsLimits: Sendable, Equatable {
    /// Places (`File.swift:LINE`) with a series of their own.
    public var locations: Int
    /// Operator names with a series of their own.
    public var operators: Int
    /// (operator, location) pairs with a stage-time histogram of their own.
    public var stages: Int
    /// Seconds without progress that make a pipeline wait: the inspector's
    /// `--stall-after` default, so the metric and the WAIT column agree.
    public var waitAfter: Double

    public init(locations: Int = 100, operators: Int = 32, stages: Int = 128, waitAfter: Double = 2) {
        self.locations = locations
        self.operators = operators
        self.stages = stages
        self.waitAfter = waitAfter
    }

    /// 100 places, 32 operators, 128 stage pairs, a wait after 2 s.
    public static let standard = MetricsLimits()
}
