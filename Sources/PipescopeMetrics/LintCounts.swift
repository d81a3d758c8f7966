import PipescopeGraph
import PipescopeModel

/// The run's lints as `pipescope_lints_total{lint}`: every flushed batch folded into a
/// ``FindingCollector`` of its own (the one `pipescope check` and PipescopeTesting judge
/// with), and each lint counted once per finding, as `check` counts them: one forgotten
/// `sink` in a loop, raised on 500 stages made at one line, is one finding and adds 1.
///
/// The collector keeps a graph of its own (pruned as the probe's is) and judges at the
/// end of each batch; ``judge(now:)`` also judges the clock's own moments (a `Future`
/// that never answers is found with no event to say so). Both run on the probe's flush
/// thread, never the program's.
///
/// ```swift
/// var lints = LintCounts(linter: Linter())
/// lints.fold(batch)
/// lints.judge(now: now)    // [.unretainedCancellable: 1]: the findings new since last time
/// ```
struct LintCounts {
    private var collector: FindingCollector
    /// Findings counted so far, by lint: a counter only rises, so a finding withdrawn
    /// later (a lint on a stage not yet placed that no longer held once placed) is not
    /// taken back.
    private var counted: [LintKind: Int] = [:]
    /// The lints that run, each exported from the start (at 0 until found).
    let kinds: [LintKind]

    init(linter: Linter) {
        // One due moment judged per gap: batches come every few milliseconds, and each
        // judgement walks every live pipeline (1,000 per gap held a flush for minutes at
        // 100,000 pipelines).
        collector = FindingCollector(linter: linter, dueJudgementsPerGap: 1)
        kinds = linter.rules.map { $0.kind }
    }

    mutating func fold(_ batch: EventBatch) {
        collector.fold(batch)
    }

    /// Judges `now` (and the moments due before it), and returns how many findings of
    /// each lint are new since the last call.
    mutating func judge(now: Int64) -> [LintKind: Int] {
        collector.finish(now: now)
        var found: [LintKind: Int] = [:]
        for finding in collector.findings { found[finding.kind, default: 0] += 1 }
        var new: [LintKind: Int] = [:]
        for (kind, n) in found where n > counted[kind, default: 0] {
            new[kind] = n - counted[kind, default: 0]
            counted[kind] = n
        }
        return new
    }
}
