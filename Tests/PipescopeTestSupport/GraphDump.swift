import PipescopeGraph

/// Text renderings of a ``Graph`` for assertions: one line per stage, indented by depth.
///
/// A shared upstream shown under a second branch appears as `^Map (shared)`.
/// `GraphDump.lines(graph)` gives, for `subject.map { $0 }.sink { _ in }` after one value:
/// ```
/// Map<-Sink active req=unlimited values=1
///   PassthroughSubject<-Map active req=unlimited values=1
/// ```
public enum GraphDump {
    public static func lines(_ graph: Graph, showValues: Bool = false) -> [String] {
        var out: [String] = []
        func visit(_ id: NodeID, depth: Int) {
            guard let n = graph[id] else { return }
            var line = String(repeating: "  ", count: depth) + "\(n.operatorName)<-\(n.subscriber) \(n.status.rawValue)"
            if let cause = n.cause { line += "(\(cause.rawValue))" }
            line += " req=\(n.requested) values=\(n.values)"
            if showValues, let v = n.lastValue { line += " last=\(v)" }
            if let e = n.error { line += " error=\(e)" }
            out.append(line)
            for child in n.children { visit(child, depth: depth + 1) }
            for feeder in n.feeders {
                out.append(String(repeating: "  ", count: depth + 1) + "^\(graph[feeder]?.operatorName ?? "?") (shared)")
            }
        }
        for root in graph.roots { visit(root, depth: 0) }
        return out
    }
}
