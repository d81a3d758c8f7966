// MARK: - Events the probe dropped, by pipeline

extension Graph {
    /// Adds events lost by pipeline (``droppedByPipeline``).
    public mutating func countDropped(_ byPipeline: [NodeID: UInt64]) {
        for (root, n) in byPipeline { droppedByPipeline[root, default: 0] &+= n }
    }

    /// The pipeline stage `id` belongs to: the root reached through its downstream
    /// stages (itself when it is a root); nil when it is not in the graph.
    public func pipeline(of id: NodeID) -> NodeID? {
        guard var node = nodes[id] else { return nil }
        var hops = 0
        while let parent = node.parent, let next = nodes[parent], hops < 10_000 {
            node = next
            hops += 1
        }
        return node.id
    }
}
