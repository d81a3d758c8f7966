import PipescopeGraph

extension LintKind {
    public static let unretainedCancellable = LintKind("unretained-cancellable")
}

/// A sink whose `AnyCancellable` nobody kept: its owner (the released `AnyCancellable`)
/// cancelled it at once, before any value, within 50 ms of its making.
enum UnretainedCancellableRule: LintRule {
    static let kind = LintKind.unretainedCancellable
    static let summary = "a subscription cancelled as soon as it was made: its AnyCancellable was not kept"
    static let advice = "Store it (`.store(in: &cancellables)`) for as long as you need the values."

    /// How soon after its making a cancel by its owner means nobody kept it.
    static let within: Int64 = 50_000_000

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.parent == nil, n.ownerID == nil, n.cause == .owner, n.values == 0,
              let ended = n.endedNanos, ended - n.createdNanos < within else { return [] }
        return ["cancelled as soon as it was made: its AnyCancellable was not kept. " + advice]
    }
}
