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

// MARK: - Hiding ended pipelines

/// Answers "has the pipeline this stage belongs to ended?" for the rows of one graph,
/// in time linear in the graph however many rows ask.
///
/// A pipeline has ended when its root and every stage upstream of it are terminal
/// (``Graph/isEnded(_:)``). Each stage's root is found once (walks up are remembered
/// along the way), and each root is decided once, by an iterative post-order pass that
/// stops at the first stage still live.
///
/// ```swift
/// var ended = EndedPipelines(graph)
/// rows.removeAll { ended.contains($0.id) }
/// ```
struct EndedPipelines {
    private let graph: Graph
    /// Each stage's root, for stages already walked.
    private var rootOf: [NodeID: NodeID] = [:]
    /// Whether a stage and everything upstream of it have ended, for stages decided.
    private var ended: [NodeID: Bool] = [:]

    init(_ graph: Graph) {
        self.graph = graph
    }

    /// Whether the pipeline `id` belongs to has ended (a stage the graph no longer has
    /// counts as ended, as in ``Graph/isEnded(_:)``).
    mutating func contains(_ id: NodeID) -> Bool {
        isEnded(root(of: id))
    }

    /// The most downstream stage above `id` (following `parent`), remembering the answer
    /// for every stage on the way.
    private mutating func root(of id: NodeID) -> NodeID {
        var walked: [NodeID] = []
        var current = id
        while walked.count <= graph.nodes.count {
            if let known = rootOf[current] {
                current = known
                break
            }
            guard let parent = graph[current]?.parent else { break }
            walked.append(current)
            current = parent
        }
        for stage in walked { rootOf[stage] = current }
        return current
    }

    /// ``Graph/isEnded(_:)`` without recursion, each stage decided at most once.
    private mutating func isEnded(_ top: NodeID) -> Bool {
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
