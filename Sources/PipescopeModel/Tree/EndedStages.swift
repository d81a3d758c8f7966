import PipescopeGraph

/// Answers "has this stage ended, with everything upstream of it?" for the stages of one
/// graph, in time linear in the graph however many stages ask.
///
/// A stage's subtree has ended when the stage and every stage upstream of it are terminal
/// (``Graph/isEnded(_:)``). Each stage is decided at most once, by an iterative
/// post-order pass that stops at the first stage still live (so chains thousands deep
/// need no recursion). Hiding ended stages (`x`) and grouping ended siblings both ask.
///
/// ```swift
/// var ended = EndedStages(graph)
/// ended.contains(root)     // the whole pipeline has ended
/// ended.contains(inner)    // this inner publisher (a flatMap's Future) has ended
/// ```
struct EndedStages {
    private let graph: Graph
    /// Whether a stage and everything upstream of it have ended, for stages decided.
    private var ended: [NodeID: Bool] = [:]

    init(_ graph: Graph) {
        self.graph = graph
    }

    /// Whether `id` and every stage upstream of it have ended (a stage the graph no
    /// longer has counts as ended, as in ``Graph/isEnded(_:)``).
    mutating func contains(_ top: NodeID) -> Bool {
        if let known = ended[top] { return known }
        var stack: [(id: NodeID, childrenDecided: Bool)] = [(top, false)]
        var entered: Set<NodeID> = []
        while let (id, childrenDecided) = stack.popLast() {
            guard ended[id] == nil else { continue }
            guard let node = graph[id] else {
                ended[id] = true
                continue
            }
            // A live stage decides its whole subtree: no need to look upstream.
            guard node.status.isTerminal else {
                ended[id] = false
                continue
            }
            if childrenDecided {
                ended[id] = node.children.allSatisfy { ended[$0] ?? true }
            } else if entered.insert(id).inserted {
                stack.append((id, true))
                for child in node.children where ended[child] == nil { stack.append((child, false)) }
            }
        }
        return ended[top] ?? true
    }
}
