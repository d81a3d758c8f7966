import PipescopeGraph

extension LintKind {
    public static let afterTerminal = LintKind("after-terminal")
}

/// Values or completions that reached a stage after it finished, failed or was cancelled.
enum AfterTerminalRule: LintRule {
    static let kind = LintKind.afterTerminal
    static let summary = "a value or completion after the stage finished, failed or was cancelled"
    /// The two causes, for the user to tell apart.
    static let advice = "a publisher is sending after its end, or a cancel raced a delivery on another thread."

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.afterEnd > 0 else { return [] }
        let plural = n.afterEnd == 1 ? "" : "s"
        return ["\(n.afterEnd) value\(plural) or completion\(plural) arrived after the stage \(n.status.rawValue): " + advice]
    }
}
