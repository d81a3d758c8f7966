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
    /// A heading naming the owner (a CancellableBag) of the roots below it; `id` is its
    /// first root. Not a stage: it cannot be selected.
    public var ownerHeader: NodeOwner?
    /// For an owner heading: how many pipelines it holds (shown or not).
    public var ownerPipelines = 0

    /// A row that is a stage's own row (not a reference, not an owner heading).
    public var isStage: Bool { !isReference && ownerHeader == nil }
}

extension Graph {
    /// The tree flattened in display order: roots by creation, each followed by its
    /// upstream stages, skipping the insides of collapsed stages. A stage fed through a
    /// subject by an upstream that lives under another branch gets a reference row.
    public func rows(collapsed: Set<NodeID>) -> [TreeRow] {
        var out: [TreeRow] = []
        out.reserveCapacity(nodes.count)
        // Roots held by an owner are listed together under its heading, at the place of
        // the owner's first root.
        var members: [UInt64: [NodeID]] = [:]
        for root in roots { if let owner = self[root]?.owner { members[owner.id, default: []].append(root) } }
        var headed = Set<UInt64>()
        for root in roots {
            guard let owner = self[root]?.owner else {
                flatten(root, depth: 0, collapsed: collapsed, into: &out)
                continue
            }
            guard headed.insert(owner.id).inserted else { continue }
            out.append(TreeRow(id: root, depth: 0, hasChildren: true, isCollapsed: false, ownerHeader: owner,
                               ownerPipelines: members[owner.id]?.count ?? 0))
            for member in members[owner.id] ?? [] { flatten(member, depth: 1, collapsed: collapsed, into: &out) }
        }
        return out
    }

    /// One root and its upstream stages, skipping the insides of collapsed stages.
    private func flatten(_ root: NodeID, depth rootDepth: Int, collapsed: Set<NodeID>, into out: inout [TreeRow]) {
        enum Item { case node(NodeID, Int), reference(NodeID, Int) }
        var stack: [Item] = [.node(root, rootDepth)]
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
    }
}
