import PipescopeModel

/// How a test's pipelines are judged: the lints' thresholds at test size (a live program's
/// are seconds and minutes), the lints turned off, and how long the block's end waits for
/// the program to settle.
///
/// ```swift
/// var thresholds = FindingThresholds()
/// thresholds.neverCompletesAfter = 0.05        // a Future must answer within 50 ms
/// thresholds.allowed = [.slowStage]            // a debug build is slow
/// let found = try await Pipescope.findings(thresholds) { try await FeedModel().load() }
/// ```
public struct FindingThresholds: Sendable {
    /// Seconds without progress that make a pipeline stall (live: 2 s).
    public var stalledAfter: Double = 0.5
    /// Seconds a one-shot publisher (a `Future`, `Just`, `first()`) may stay active (live: 30 s).
    public var neverCompletesAfter: Double = 0.5
    /// Milliseconds of a stage's own code per value that make it slow (live: a frame, 16).
    public var slowAfter: Double = 16
    /// Seconds and count for `pile-up` (live: a minute, 10 pipelines).
    public var pileUpAfter: Double = 1
    public var pileUpCount = 10
    /// Lints turned off, as `-A` turns them off.
    public var allowed: Set<LintKind> = []
    /// Whether a pipeline still active when the block ends, and held by nothing the block
    /// released, is a finding (``LintKind/leakedSubscription``).
    public var findsLeaks = true
    /// At most this many seconds, after the block returns, for its last events and the
    /// places of its pipelines (the symbol thread's work) to arrive.
    public var settle: Double = 5

    public init() {}

    /// The linter these make.
    var linter: Linter {
        var linter = Linter(allowed: allowed)
        linter.stalledAfter = stalledAfter
        linter.neverCompletesAfter = neverCompletesAfter
        linter.slowAfter = slowAfter
        linter.pileUpAfter = pileUpAfter
        linter.pileUpCount = pileUpCount
        return linter
    }
}
