import PipescopeGraph

extension LintKind {
    public static let contractViolation = LintKind("contract-violation")
}

/// A stage declared `.immediate`, `.single` or `.maybe` (`pipescopeExpect`) that broke the
/// promise: one lint per broken contract, saying how.
enum ContractViolationRule: LintRule {
    static let kind = LintKind.contractViolation
    static let summary = "a publisher that broke the contract declared with pipescopeExpect (immediate, single, maybe)"
    static let advice = "Fix the publisher, or declare the contract it really keeps."

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        n.contractBroken.map { "\($0). " + advice }
    }
}
