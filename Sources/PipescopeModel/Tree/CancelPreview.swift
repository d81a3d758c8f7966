import PipescopeGraph

/// What cancelling a stage will reach, shown before the user confirms.
///
/// Cancelling stage N cancels the subscription its subscriber holds. Map and Filter
/// pass one subscription object along, so every stage sharing it goes too; the cancel
/// then travels upstream. Stages downstream of N get nothing more, not even a
/// completion: they are orphaned.
public struct CancelPreview: Equatable, Sendable {
    public var target: NodeID
    /// The stages that pass the same subscription object (the target included).
    public var sharing: [NodeID]
    /// Live stages upstream of the target, which the cancel reaches in order.
    public var upstream: [NodeID]
    /// Live stages downstream, which will be orphaned.
    public var orphaned: [NodeID]
    public init?(target: NodeID, in graph: Graph) {
        guard let node = graph[target] else { return nil }
        self.target = target
        let owner = node.subscriptionOwner ?? target
        sharing = ([owner] + (graph[owner]?.sharers ?? [])).sorted()
        var up: [NodeID] = []
        var stack = sharing.flatMap { graph[$0]?.children ?? [] }
        while let id = stack.popLast() {
            guard let n = graph[id], !sharing.contains(id) else { continue }
            if !n.status.isTerminal { up.append(id) }
            stack.append(contentsOf: n.children)
        }
        upstream = up.sorted()
        var down: [NodeID] = []
        var parent = node.parent
        while let p = parent, let n = graph[p] {
            if !sharing.contains(p), !n.status.isTerminal { down.append(p) }
            parent = n.parent
        }
        orphaned = down
    }
}
