import ArgumentParser
import PipescopeGraph
import PipescopeModel

/// `-A NAME`: turn a lint off, as tokio-console allows.
struct LintOptions: ParsableArguments {
    @Option(name: .customShort("A"), help: ArgumentHelp(
        "Allow (turn off) a lint; repeatable.",
        discussion: "Lints: \(LintKind.allCases.map(\.rawValue).joined(separator: ", ")).",
        valueName: "lint"))
    var allow: [String] = []

    func validate() throws {
        for name in allow where LintKind(rawValue: name) == nil {
            throw ValidationError("unknown lint '\(name)'; the lints are \(LintKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    var linter: Linter { Linter(allowed: Set(allow.compactMap(LintKind.init(rawValue:)))) }

    /// The graph with its warnings as `now`, in the JSON or text that `snapshot` and
    /// `replay --json/--print` print.
    func report(_ graph: Graph, title: String, now: Int64, json: Bool) -> String {
        let warnings = linter.lints(graph, now: now)
        return json ? SnapshotJSON.render(graph, lints: warnings) : SnapshotText.render(graph, title: title, lints: warnings)
    }
}
