import PipescopeGraph

/// The graph as an indented tree, one stage per line: what `pipescope snapshot` and
/// `pipescope replay --print` print for people and shell pipelines.
///
/// ```
/// demo (pid 4242): 3 stages, 0 events dropped
///   Filter -> Sink  active  demand unlimited  values 2  last 8  at Feed.swift:88
///     Map  active  demand unlimited  values 4  last 8
/// ```
public enum SnapshotText {
    public static func render(_ graph: Graph, title: String, lints: [Lint] = []) -> String {
        let stages = graph.nodes.count, dropped = graph.dropped
        var lines = ["\(title): \(stages) stage\(stages == 1 ? "" : "s"), \(dropped) event\(dropped == 1 ? "" : "s") dropped"
                     + droppedByPipeline(graph)]
        for row in graph.rows(collapsed: []) {
            guard let n = graph[row.id] else { continue }
            let indent = String(repeating: "  ", count: row.depth + 1)
            if row.isReference {
                lines.append(indent + "^ #\(n.id) \(n.operatorName) (shared upstream, shown above)")
                continue
            }
            if let owner = row.ownerHeader {
                let released = graph.owners[owner.id]?.releasedNanos != nil
                lines.append(indent + "owner \(owner.name)" + (released ? " (released)" : ""))
                continue
            }
            var line = indent + n.operatorName
            if n.parent == nil { line += " -> \(n.subscriber)" }
            line += "  \(n.status.rawValue)"
            if let cause = n.cause { line += " by \(cause.rawValue)" }
            if n.orphaned { line += " (orphaned)" }
            line += "  demand \(n.requested)  values \(n.values)"
            if let v = n.lastValue {
                line += "  last \(v)"
                if n.undescribedSince > 0 { line += " (\(n.undescribedSince) newer not described: sampled)" }
            }
            if let e = n.error { line += "  error \(e)" }
            // Only where a stage recorded its own (roots, inner publishers): the stages
            // indented under it were made there too.
            if let location = n.location { line += "  at \(location.short)" }
            lines.append(line)
        }
        if !lints.isEmpty {
            lines.append("warnings:")
            for lint in lints {
                lines.append("  ! #\(lint.node) \(graph[lint.node]?.operatorName ?? "?")  \(lint.kind.rawValue): \(lint.message)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// ` (#1: 1200, #7: 30)`: whose they were, most first, when the probe said.
    static func droppedByPipeline(_ graph: Graph) -> String {
        guard !graph.droppedByPipeline.isEmpty else { return "" }
        let parts = graph.droppedByPipeline.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { ($0.key == 0 ? "stages not yet known" : "#\($0.key)") + ": \($0.value)" }
        return " (" + parts.joined(separator: ", ") + ")"
    }
}
