import PipescopeGraph

/// One visible line of the pipeline tree.
public struct TreeRow: Hashable, Sendable {
    public var id: NodeID
    public var depth: Int
    public var hasChildren: Bool
    public var isCollapsed: Bool
}

extension Graph {
    /// The tree flattened in display order: roots by creation, each followed by its
    /// upstream stages, skipping the insides of collapsed stages.
    public func rows(collapsed: Set<NodeID>) -> [TreeRow] {
        var out: [TreeRow] = []
        out.reserveCapacity(nodes.count)
        var stack: [(NodeID, Int)] = roots.reversed().map { ($0, 0) }
        while let (id, depth) = stack.popLast() {
            guard let node = self[id] else { continue }
            let isCollapsed = collapsed.contains(id)
            out.append(TreeRow(id: id, depth: depth, hasChildren: !node.children.isEmpty, isCollapsed: isCollapsed))
            if !isCollapsed {
                for child in node.children.reversed() { stack.append((child, depth + 1)) }
            }
        }
        return out
    }
}
