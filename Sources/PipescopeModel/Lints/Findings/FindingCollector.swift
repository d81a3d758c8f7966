import PipescopeGraph

/// Folds a run (a recording read message by message, or a live program's batches as they
/// come) into its ``Finding``s: every lint raised at any moment of the run, each distinct
/// one kept once, from the first time it was raised, even after its stage ended and was
/// pruned (a graph at the run's end holds only what is still retained, so its lints are
/// not the run's).
///
/// **When it judges.** At the end of each batch, with that batch's last event's time as
/// the clock; and before a batch, at each time a running rule said its verdict may change
/// with no event (``LintRule/due(_:in:)``, ``PipelineLints/due``) that falls before the
/// batch's first event: a pipeline that stalled for a minute and then moved on within
/// one gap between batches was stalled, and is found. Each moment is judged with its own
/// clock, never the run's end. The lints come from the inspector's own incremental
/// warnings (``AppState/Warnings``), so a check agrees with what a person would have seen.
///
/// **What is one finding.** A lint on a stage (its kind and stage id) counts once however
/// often it is raised. Lints that are the same mistake in the same place
/// (``LintGroup/key(_:stage:root:)``, the warnings list's rule) are one finding with a
/// count. Where a stage was made is learnt a batch or two after it: a raised lint's place
/// is brought up to date while its stage is in the graph.
///
/// The collector is a graph of its own and a ``FindingJudge`` that judges it; a live
/// program's metrics use the judge alone, on the probe's graph.
///
/// ```swift
/// var collector = FindingCollector(linter: Linter(allowed: [.slowStage]))
/// collector.load(snapshot)
/// for batch in batches { collector.fold(batch) }
/// collector.finish(now: lastEventTime)
/// for finding in collector.findings { print(finding.line) }
/// ```
public struct FindingCollector: Sendable {
    /// The lints that run, with their thresholds.
    public var linter: Linter { judge.linter }
    /// How long ended stages stay in the graph (nil: they stay for the whole run).
    public let retention: Retention?
    /// The run's graph as of the last batch folded (pruned with ``retention``).
    public private(set) var graph = Graph()
    /// The last moment judged.
    public var clock: Int64 { judge.clock }
    /// The most due times judged in one gap between batches by default: a rule whose due
    /// never moves on cannot hold the fold.
    public static let maxDueJudgementsPerGap = 1_000
    /// The most due times judged in one gap between batches. Each judgement walks every
    /// live pipeline, so a live program's metrics, folding a batch every few milliseconds
    /// with 100,000 pipelines, judge one (the gaps are short; `check` and tests judge all).
    public var dueJudgementsPerGap: Int { judge.dueJudgementsPerGap }

    private var judge: FindingJudge

    public init(linter: Linter = Linter(), retention: Retention? = .standard,
                dueJudgementsPerGap: Int = FindingCollector.maxDueJudgementsPerGap) {
        self.retention = retention
        judge = FindingJudge(linter: linter, dueJudgementsPerGap: dueJudgementsPerGap)
        graph.recordChanges()
    }

    /// Starts over from a snapshot (a recording's first message, or a program's graph
    /// on attach); what was raised before stays raised.
    public mutating func load(_ snapshot: GraphSnapshot) {
        graph.load(snapshot)
        graph.recordChanges()
        judge.reload()
    }

    /// Folds one batch of the run, judging the moments the rules fall due before it,
    /// then the batch's end.
    public mutating func fold(_ batch: EventBatch) {
        judge.willFold(batch, graph: &graph)
        graph.fold(batch)
        judge.didFold(batch, graph: &graph)
        if let retention, clock > .min { graph.prune(now: clock, retention: retention) }
    }

    /// Judges the moments due up to `now` and `now` itself: the run's end (a recording's
    /// last event's time, or the end of a test's block).
    public mutating func finish(now: Int64) {
        judge.finish(now: now, graph: &graph)
    }

    /// The findings so far, first raised first: each distinct one once, with a count.
    public var findings: [Finding] { judge.findings }
}
