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
        guard case .count(let requested) = n.requested, n.values > requested else { return [] }
        return ["\(n.values) values delivered but only \(requested) requested: "
            + "\(n.operatorName) ignores its subscriber's demand. " + advice]
    }
}
