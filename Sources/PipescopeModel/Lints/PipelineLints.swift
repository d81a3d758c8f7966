import PipescopeGraph

/// One pipeline's share of the warnings: its waits, its lints, and the earliest time they
/// may change with no event. The tick recomputes only the pipelines whose stages changed
/// and those that fell due, and keeps every other pipeline's share as it was.
///
/// What time alone changes, and so what `due` covers:
/// - a stage that flows starts to wait (``Waits``) once its threshold passes;
/// - a `stalled` lint's message says how long (`41s`, `2m`): its text changes at the next
///   whole second, minute, hour or day;
/// - a one-shot publisher becomes `never-completes` after ``Linter/neverCompletesAfter``.
///
/// Everything else in a pipeline's share changes only with its stages' events, or, for
/// `owner-leak`, its root's owner's release (``owner``).
///
/// ```swift
/// let share = PipelineLints(root: 1, of: graph, now: now, linter: linter)
/// share.lints         // in stage order, as Linter.lints(_:now:waits:) lists them
/// share.due           // recompute at this time even if no event comes (.max: never)
/// ```
struct PipelineLints: Sendable {
    /// The pipeline's verdicts (stages and root), as ``Waits/pipeline(_:of:now:after:)`` makes them.
    var waits: Waits
    /// Its stages' lints, in stage order.
    var lints: [Lint]
    /// When time alone may change the share.
    var due: Int64
    /// The root's owner, whose release makes an active pipeline leak.
    var owner: UInt64?
    /// Each lint's group (``LintGroup/key(_:stage:root:)``), in the order of `lints`:
    /// worked out with the lints, so grouping every pipeline's lints on a tick is a
    /// lookup each, not the names of two stages put together and hashed.
    var keys: [LintGroup.Key]

    init(root: NodeID, of graph: Graph, now: Int64, linter: Linter) {
        let (waits, waitsDue) = Waits.pipeline(root, of: graph, now: now, after: linter.stalledAfter)
        var due = waitsDue
        var stalled: [(root: NodeID, wait: Wait)] = []
        if !linter.allowed.contains(.stalled), let wait = waits.pipeline(root),
           !Linter.waitsForItsInput(wait, in: graph) {
            stalled = [(root, wait)]
            due = min(due, wait.sinceNanos &+ max(0, now - wait.sinceNanos) &+ CellText.ageChange(after: wait.nanos(at: now)))
        }
        var ids: [NodeID] = []
        var stack = [root]
        while let id = stack.popLast() {
            guard let node = graph[id] else { continue }
            ids.append(id)
            stack.append(contentsOf: node.children)
        }
        ids.sort()
        var lints: [Lint] = []
        let checksNeverCompletes = !linter.allowed.contains(.neverCompletes)
        let neverCompletes = Int64(linter.neverCompletesAfter * 1e9)
        for id in ids {
            guard let n = graph[id] else { continue }
            linter.lint(n, in: graph, now: now, stalled: stalled.first?.wait.at == id ? stalled : [], into: &lints)
            if checksNeverCompletes, n.status == .active, Linter.oneShot.contains(n.operatorName) {
                // Not yet flagged: it will be from about `onset` (checked again then).
                if !(Double(now - n.createdNanos) / 1e9 > linter.neverCompletesAfter) {
                    due = min(due, max(n.createdNanos &+ neverCompletes, now &+ 1))
                }
            }
        }
        self.waits = waits
        self.lints = lints
        self.due = due
        let rootNode = graph[root]
        self.owner = rootNode?.owner?.id
        keys = lints.map { LintGroup.key($0, stage: graph[$0.node], root: rootNode) }
    }
}
