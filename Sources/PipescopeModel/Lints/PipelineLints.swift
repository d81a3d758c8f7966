import PipescopeGraph

/// One pipeline's share of the warnings: its waits, its lints, and the earliest time they
/// may change with no event. The tick recomputes only the pipelines whose stages changed
/// and those that fell due, and keeps every other pipeline's share as it was.
///
/// What time alone changes, and so what `due` covers: a stage that flows starts to wait
/// (``Waits``) once its threshold passes; and each running rule says when its verdict on
/// a stage may change with no event (``LintRule/due(_:in:)``: a `stalled` lint's age, a
/// one-shot publisher becoming `never-completes`).
///
/// Everything else in a pipeline's share changes only with its stages' events, or, for
/// `owner-leak`, its root's owner's release (``owner``), or, for `pile-up`, a change to
/// the pipelines of its place (``PlaceTally``: the warnings recompute the share of the
/// place's holder then).
///
/// ```swift
/// let share = PipelineLints(root: 1, of: graph, now: now, linter: linter, places: PlaceTally(graph))
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

    init(root: NodeID, of graph: Graph, now: Int64, linter: Linter, places: PlaceTally) {
        let (waits, waitsDue) = Waits.pipeline(root, of: graph, now: now, after: linter.stalledAfter)
        let context = LintContext(graph: graph, now: now, linter: linter, waits: waits, waitsDue: waitsDue, places: places)
        // The verdicts are part of the share whether or not a rule reads them.
        var due = waitsDue
        var ids: [NodeID] = []
        var stack = [root]
        while let id = stack.popLast() {
            guard let node = graph[id] else { continue }
            ids.append(id)
            stack.append(contentsOf: node.children)
        }
        ids.sort()
        var lints: [Lint] = []
        for id in ids {
            guard let n = graph[id] else { continue }
            linter.lint(n, in: context, into: &lints)
            due = min(due, linter.due(n, in: context))
        }
        self.waits = waits
        self.lints = lints
        self.due = due
        let rootNode = graph[root]
        self.owner = rootNode?.ownerID
        keys = lints.map { LintGroup.key($0, stage: graph[$0.node], root: rootNode) }
    }
}
