/// Every lint Pipescope has, in the order one stage's lints are listed. The linter, the
/// inspector's per-pipeline lints, `-A`, `--dump-on` and the help read this list; a new
/// lint is a file in `Rules/` (``LintRule``) and a line here.
///
/// ```swift
/// LintRules.named("stalled")?.summary   // "a pipeline waiting longer than --stall-after …"
/// try LintRules.kinds(named: ["stalled", "owner-leak"])   // what -A turns off
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
        SlowStageRule.self,
        OutOfOrderRule.self,
        RepeatedWorkRule.self,
        PileUpRule.self,
        ZipUnpairedRule.self,
        LateShareRule.self,
    ]

    /// The rule whose kind is spelled `name` (`-A`, `--dump-on`); nil for none.
    public static func named(_ name: String) -> (any LintRule.Type)? {
        all.first { $0.kind.rawValue == name }
    }

    /// Each lint's name and summary, one a line, each line starting with `indent`: what
    /// `-A`'s error lists, the summaries `aligned` in a column, and its help, not aligned
    /// (the help wraps long lines at its own indent, which no column survives).
    public static func listing(indent: String = "  ", aligned: Bool = true) -> String {
        let width = all.map { $0.kind.rawValue.count }.max() ?? 0
        return all.map { rule in
            let name = rule.kind.rawValue
            let gap = aligned ? String(repeating: " ", count: width - name.count + 2) : ": "
            return indent + name + gap + rule.summary
        }.joined(separator: "\n")
    }

    /// The lints `-A` names turn off; throws ``UnknownLint`` for the first name that is
    /// no lint.
    public static func kinds(named names: [String]) throws(UnknownLint) -> Set<LintKind> {
        var kinds: Set<LintKind> = []
        for name in names {
            guard let rule = named(name) else { throw UnknownLint(name: name) }
            kinds.insert(rule.kind)
        }
        return kinds
    }
}

/// `-A` given a name that is no lint: says which, and lists the lints it takes.
public struct UnknownLint: Error, Equatable, CustomStringConvertible {
    public let name: String

    public var description: String {
        "unknown lint '\(name)'; -A takes one of these (for example -A \(LintRules.all[0].kind.rawValue)):\n"
            + LintRules.listing()
    }
}
