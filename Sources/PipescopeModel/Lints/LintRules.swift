/// Every lint Pipescope has, in the order one stage's lints are listed. The linter, the
/// inspector's per-pipeline lints, `-A`, `--dump-on` and the help read this list; a new
/// lint is a file in `Rules/` (``LintRule``) and a line here.
///
/// ```swift
/// LintRules.named("stalled")?.summary   // "a pipeline without progress for longer than --stall-after …"
/// ```
public enum LintRules {
    public static let all: [any LintRule.Type] = [
        UnretainedCancellableRule.self,
        DemandViolationRule.self,
        AfterTerminalRule.self,
        StalledRule.self,
        NeverCompletesRule.self,
        OwnerLeakRule.self,
        ContractViolationRule.self,
    ]

    /// The rule whose kind is spelled `name` (`-A`, `--dump-on`); nil for none.
    public static func named(_ name: String) -> (any LintRule.Type)? {
        all.first { $0.kind.rawValue == name }
    }
}
