import PipescopeGraph
import PipescopeModel

/// How the walk over a recording (``TraceWalk``) draws and forgets, whatever the format.
///
/// ```swift
/// let options = ExportOptions(linter: nil)            // no lints drawn
/// let result = try RecordingExport.run(&recording, to: "app.json", options: options)
/// ```
public struct ExportOptions: Sendable {
    /// The lints to draw; nil draws none.
    public var linter: Linter?
    /// How long ended stages stay in the walk's graph (recording time): late events
    /// (after-terminal lints) are seen within it.
    public var retention: Retention
    /// How often, in the recording's time (nanoseconds), the lints are looked for and
    /// then the graph pruned (and always at the end): lints are about seconds (a stall, a
    /// leak) and both go through every stage, so not after every batch; and as pruning
    /// waits for the lints, every stage is linted before it is forgotten.
    public var lintInterval: Int64

    public init(linter: Linter? = Linter(), retention: Retention = Retention(seconds: 2, maxEndedPipelines: 100),
                lintInterval: Int64 = 100_000_000) {
        self.linter = linter
        self.retention = retention
        self.lintInterval = lintInterval
    }

    /// Whether the lints and pruning are due at `now`, last done at `last` (nil: never);
    /// if so, `last` becomes `now`.
    func lintsDue(now: Int64, last: inout Int64?) -> Bool {
        if let previous = last, now - previous < lintInterval { return false }
        last = now
        return true
    }
}
