import PipescopeGraph

extension LintKind {
    public static let stalled = LintKind("stalled")
}

/// A pipeline that waits (``Waits``: longer than `--stall-after` without progress), one
/// lint per waiting pipeline, on the stage holding its wait. A pipeline waiting on a
/// subject nobody sends to waits for the program's own input (a button, a search field):
/// idle, not stuck; WAIT says so, and it is no warning.
enum StalledRule: LintRule {
    static let kind = LintKind.stalled
    static let summary = "a pipeline without progress for longer than --stall-after (not on the program's own input)"
    /// What each message says, by why the pipeline waits (``Wait/lintMessage(pipeline:in:now:)``).
    static let advice = "upstream: make the stage holding the wait send, or cancel the pipeline; "
        + "demand: its subscriber must request more; subscription: a custom publisher must call receive(subscription:)."
    static let readsWaits = true
    /// The stage holding the wait is a source that does not send (a `Future` never
    /// fulfilled): the line to change is its code, or what built it.
    static let pointsAtCode = true

    /// Whether `wait` is on the program's own input: a subject nobody sends to.
    static func waitsForItsInput(_ wait: Wait, in graph: Graph) -> Bool {
        wait.reason == .upstream && Waits.isProgramInput(wait.at, in: graph)
    }

    /// The waiting pipelines whose wait `stage` holds, that are warnings.
    private static func reported(on stage: NodeSummary, in context: LintContext) -> [(root: NodeID, wait: Wait)] {
        context.pipelinesWaiting(on: stage.id).filter { !waitsForItsInput($0.wait, in: context.graph) }
    }

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        reported(on: n, in: context).map { $0.wait.lintMessage(pipeline: $0.root, in: context.graph, now: context.now) }
    }

    /// A message says how long (`41s`, `2m`): it changes at the next whole second, minute,
    /// hour or day. A pipeline that does not wait starts to when one of its stages does:
    /// no sooner than its verdicts fall due (asked of its root, whose verdict is the
    /// pipeline's).
    static func due(_ n: NodeSummary, in context: LintContext) -> Int64 {
        var due = n.parent == nil ? context.waitsDue : .max
        for (_, wait) in reported(on: n, in: context) {
            let waited = wait.nanos(at: context.now)
            // From now: a pause left out of `waited` does not move when its text changes.
            due = min(due, context.now &+ CellText.ageChange(after: waited))
        }
        return due
    }
}
