import PipescopeGraph

extension LintKind {
    public static let demandViolation = LintKind("demand-violation")
}

/// More values delivered to a stage than its subscriber requested.
enum DemandViolationRule: LintRule {
    static let kind = LintKind.demandViolation
    static let summary = "more values delivered than the subscriber requested"
    static let advice = "Buffer, or honour request(_:)."

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard overDelivered(n) else { return [] }
        // A stage that passes on what its upstream sent beyond demand is not the one that
        // ignores it: one mistake, one warning, at the stage that made it.
        if n.children.contains(where: { context.graph[$0].map(overDelivered) ?? false }) { return [] }
        guard case .count(let requested) = n.requested else { return [] }
        return ["\(n.values == 1 ? "1 value" : "\(n.values) values") delivered but only \(requested) requested: "
            + "\(n.operatorName) ignores its subscriber's demand. " + advice]
    }

    /// More values went to the stage's subscriber than it asked for.
    private static func overDelivered(_ n: NodeSummary) -> Bool {
        guard case .count(let requested) = n.requested else { return false }
        return n.values > requested
    }
}
