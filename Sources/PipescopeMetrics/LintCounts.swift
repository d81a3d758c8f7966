import PipescopeGraph
import PipescopeModel
import PipescopeProbe
import Synchronization

/// The run's lints as `pipescope_lints_total{lint}`, judged on the probe's own graph: a
/// ``FindingJudge`` (the one `pipescope check` and PipescopeTesting judge with) watches
/// each of the probe's folds (``FoldWatcher``), so every event is folded once, not into a
/// second graph. Each lint is counted once per finding, as `check` counts them: one
/// forgotten `sink` in a loop, raised on 500 stages made at one line, is one finding and
/// adds 1.
///
/// Judged before each batch (the moments due before it, on the graph as it stood) and
/// after it (its end, before the probe prunes), and at ``judge(now:graph:)``, about once a
/// second, at the clock's own moment (a `Future` that never answers is found with no
/// event to say so). All on the probe's flush thread, under its lock, never the program's.
///
/// While nothing receives the metrics (the program has not bootstrapped a backend), it
/// judges nothing: it drops the graph's changes, and judges everything once one comes.
///
/// ```swift
/// let lints = LintCounts(linter: Linter(), hasBackend: { true })
/// probe.watchFolds(lints)
/// probe.flush()
/// probe.withWatchedGraph(by: lints) { lints.judge(now: now, graph: &$0) }   // [.unretainedCancellable: 1]
/// ```
final class LintCounts: FoldWatcher {
    private struct State {
        var judge: FindingJudge
        /// Findings counted so far, by lint: a counter only rises, so a finding withdrawn
        /// later (a lint on a stage not yet placed that no longer held once placed) is not
        /// taken back.
        var counted: [LintKind: Int] = [:]
    }

    /// Taken only under the probe's lock (a fold, or ``Probe/withWatchedGraph(by:_:)``).
    private let state: Mutex<State>
    private let hasBackend: @Sendable () -> Bool
    /// The lints that run, each exported from the start (at 0 until found).
    let kinds: [LintKind]

    init(linter: Linter, hasBackend: @escaping @Sendable () -> Bool) {
        // One due moment judged per gap: batches come every few milliseconds, and each
        // judgement walks every live pipeline (1,000 per gap held a flush for minutes at
        // 100,000 pipelines).
        state = Mutex(State(judge: FindingJudge(linter: linter, dueJudgementsPerGap: 1)))
        self.hasBackend = hasBackend
        kinds = linter.rules.map { $0.kind }
    }

    func willFold(_ batch: EventBatch, graph: inout Graph) {
        guard hasBackend() else { return }
        state.withLock { $0.judge.willFold(batch, graph: &graph) }
    }

    func didFold(_ batch: EventBatch, graph: inout Graph) {
        guard hasBackend() else {
            // Nobody reads them: the changes would only pile up. All is judged once one does.
            _ = graph.takeChanges()
            state.withLock { $0.judge.reload() }
            return
        }
        state.withLock { $0.judge.didFold(batch, graph: &graph) }
    }

    /// Judges `now` (and the moments due before it) on `graph`, the probe's (under its
    /// lock), and returns how many findings of each lint are new since the last call.
    func judge(now: Int64, graph: inout Graph) -> [LintKind: Int] {
        state.withLock { state in
            state.judge.finish(now: now, graph: &graph)
            var found: [LintKind: Int] = [:]
            for finding in state.judge.findings { found[finding.kind, default: 0] += 1 }
            var new: [LintKind: Int] = [:]
            for (kind, n) in found where n > state.counted[kind, default: 0] {
                new[kind] = n - state.counted[kind, default: 0]
                state.counted[kind] = n
            }
            return new
        }
    }
}
