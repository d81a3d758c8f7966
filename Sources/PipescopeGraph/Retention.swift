import Foundation

/// How long ended stages stay visible before they are pruned.
///
/// Both the probe and the inspector prune with the same policy, so a long-running
/// program's graph, and the inspector's copy, stay bounded by its live stages plus
/// this much history. Live stages are never pruned.
public struct Retention: Sendable, Equatable {
    /// An ended subtree (a stage and everything upstream of it, all ended) is removed
    /// this many seconds after its stage ended…
    public var seconds: Double
    /// …and at most this many ended pipelines (roots) are kept regardless of age…
    public var maxEndedPipelines: Int
    /// …and at most this many ended inner subtrees under any one stage (a `flatMap`'s or a
    /// `catch`'s finished inner publishers), the oldest going first. Without it a program
    /// that subscribes an inner publisher per value would keep every one for `seconds`:
    /// 170,000 a second in the `flatMap` benchmark would grow the program by 70 MB a second.
    public var maxEndedInner: Int

    public init(seconds: Double = 60, maxEndedPipelines: Int = 500, maxEndedInner: Int = 500) {
        self.seconds = seconds
        self.maxEndedPipelines = maxEndedPipelines
        self.maxEndedInner = maxEndedInner
    }

    public static let standard = Retention()

    /// The standard policy, with `PIPESCOPE_RETAIN_SECONDS`, `PIPESCOPE_RETAIN_PIPELINES`
    /// and `PIPESCOPE_RETAIN_INNER` applied; a value that is not a number it can take is
    /// said on standard error, with what is used instead (``parse(_:)``).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Retention {
        let (retention, problems) = parse(environment)
        problems.forEach(EnvironmentNumber.say)
        return retention
    }

    /// ``fromEnvironment(_:)`` without the saying: the policy, and what was wrong.
    public static func parse(_ environment: [String: String]) -> (Retention, problems: [String]) {
        let standard = Retention.standard
        let seconds = EnvironmentNumber.read("PIPESCOPE_RETAIN_SECONDS", in: environment, default: standard.seconds,
                                             minimum: 0, unit: "seconds")
        let pipelines = EnvironmentNumber.read("PIPESCOPE_RETAIN_PIPELINES", in: environment,
                                               default: standard.maxEndedPipelines, minimum: 0, unit: "ended pipelines")
        let inner = EnvironmentNumber.read("PIPESCOPE_RETAIN_INNER", in: environment, default: standard.maxEndedInner,
                                           minimum: 0, unit: "ended inner stages")
        return (Retention(seconds: seconds.value, maxEndedPipelines: pipelines.value, maxEndedInner: inner.value),
                [seconds.problem, pipelines.problem, inner.problem].compactMap { $0 })
    }
}
