import PipescopeGraph

/// One visible line of the pipeline tree.
public struct TreeRow: Hashable, Sendable {
    public var id: NodeID
    public var depth: Int
    public var hasChildren: Bool
    public var isCollapsed: Bool
    /// A shared upstream shown again under another branch it feeds (share, multicast):
    /// it points at the stage, whose own row is elsewhere.
    public var isReference = false
}

extension Graph {
    /// The tree flattened in display order: roots by creation, each followed by its
    /// upstream stages, skipping the insides of collapsed stages. A stage fed through a
    /// subject by an upstream that lives under another branch gets a reference row.
    public func rows(collapsed: Set<NodeID>) -> [TreeRow] {
        var out: [TreeRow] = []
        out.reserveCapacity(nodes.count)
        enum Item { case node(NodeID, Int), reference(NodeID, Int) }
        var stack: [Item] = roots.reversed().map { .node($0, 0) }
        while let item = stack.popLast() {
            switch item {
            case .reference(let id, let depth):
                out.append(TreeRow(id: id, depth: depth, hasChildren: false, isCollapsed: false, isReference: true))
            case .node(let id, let depth):
                guard let node = self[id] else { continue }
                let isCollapsed = collapsed.contains(id)
                let hasChildren = !node.children.isEmpty || !node.feeders.isEmpty
                out.append(TreeRow(id: id, depth: depth, hasChildren: hasChildren, isCollapsed: isCollapsed))
                guard !isCollapsed else { continue }
                for feeder in node.feeders.reversed() { stack.append(.reference(feeder, depth + 1)) }
                for child in node.children.reversed() { stack.append(.node(child, depth + 1)) }
            }
        }
        return out
    }
}
