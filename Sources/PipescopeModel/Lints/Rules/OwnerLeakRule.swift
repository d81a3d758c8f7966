import PipescopeGraph

extension LintKind {
    public static let ownerLeak = LintKind("owner-leak")
}

/// A pipeline shown under an owner still active after the owner was released. No clock:
/// the owner's release is an event, and the inspector's tick checks again the pipelines
/// whose root's owner it released.
enum OwnerLeakRule: LintRule {
    static let kind = LintKind.ownerLeak
    static let summary = "a task or subscription still active after its owner was released"
    static let advice = "tie it to the owner (store its AnyCancellable in the owner's bag; for a Task, "
        + "`task.eraseToAnyCancellable().store(in: bag)`), or cancel it when the owner goes."

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.parent == nil, !n.status.isTerminal, let owner = context.graph.owner(of: n.id),
              owner.releasedNanos != nil else { return [] }
        return ["still active after its owner \(owner.name) was released: " + advice]
    }
}
