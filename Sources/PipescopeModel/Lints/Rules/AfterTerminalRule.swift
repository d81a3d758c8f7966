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

    /// OpenCombine's operators that deliver on a scheduler: what they scheduled before a
    /// cancel is delivered after it (their subscriber ignores it). That race is theirs,
    /// by design, and not a mistake of the program's; a cancelled stage of one of them is
    /// not named (a publisher of the program's that keeps sending after a cancel still is).
    static let scheduling: Set<String> = ["Delay", "ReceiveOn", "SubscribeOn", "Debounce", "Throttle", "Timeout",
                                          "MeasureInterval"]

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.afterEnd > 0, !(n.status == .cancelled && scheduling.contains(n.operatorName)) else { return [] }
        let plural = n.afterEnd == 1 ? "" : "s"
        return ["\(n.afterEnd) value\(plural) or completion\(plural) arrived after the stage \(n.status.rawValue): " + advice]
    }
}
