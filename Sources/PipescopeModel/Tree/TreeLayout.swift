import PipescopeGraph

/// Lays a graph out as the tree's rows: folded stages, groups of ended siblings, and
/// ended stages left out; in time linear in the graph.
///
/// Roots come in creation order, the roots an owner holds together under its heading
/// (at the place of its first root), and each stage is followed by its upstream stages.
/// With ``grouping``, siblings (under one stage, one owner, or at the top) that share a
/// ``GroupKey`` share one row, at the place of the oldest of them, when there are at
/// least two; `→` opens a group (``expanded``). With ``hideEnded``, every stage that
/// ended with everything upstream of it is left out: whole pipelines, and the finished
/// inner publishers of live ones.
///
/// ```swift
/// let layout = TreeLayout(collapsed: [4], grouping: true, hideEnded: true)
/// let result = layout.layout(graph)
/// result.rows          // what the tree shows
/// result.hiddenEnded   // how many stages hideEnded left out
/// ```
public struct TreeLayout: Sendable {
    /// Stages whose upstream is folded away.
    public var collapsed: Set<NodeID>
    /// Groups opened with `→`.
    public var expanded: Set<StageGroup.ID>
    /// Ended siblings with the same key share one row.
    public var grouping: Bool
    /// Ended stages are left out (`x`).
    public var hideEnded: Bool
    /// Only this pipeline: its root's stage at depth 0, and everything upstream of it.
    /// The root is never grouped with other pipelines alike: a user who opened pipeline #7
    /// from the table sees #7, not a group of the ended pipelines like it. Nil: all.
    public var root: NodeID?

    public init(collapsed: Set<NodeID> = [], expanded: Set<StageGroup.ID> = [], grouping: Bool = false,
                hideEnded: Bool = false, root: NodeID? = nil) {
        self.collapsed = collapsed
        self.expanded = expanded
        self.grouping = grouping
        self.hideEnded = hideEnded
        self.root = root
    }

    public struct Result: Sendable {
        public var rows: [TreeRow] = []
        /// Stages left out because they ended (only counted with ``hideEnded``).
        public var hiddenEnded = 0
    }

    public func layout(_ graph: Graph) -> Result {
        var walk = Walk(graph: graph, layout: self)
        walk.run()
        return walk.result
    }
}

// MARK: - The walk

/// One pass over the graph with an explicit stack (chains can be thousands deep).
private struct Walk {
    typealias HeldRoots = (owner: Owner, roots: [NodeID], held: Int)

    enum Item {
        case stage(NodeID, depth: Int)
        case reference(NodeID, depth: Int)
        case group(StageGroup, depth: Int)
        case owner(HeldRoots, depth: Int)
        case owners(StageGroup, [HeldRoots], depth: Int)
    }

    let graph: Graph
    let layout: TreeLayout
    var ended: EndedStages
    var result = TreeLayout.Result()

    init(graph: Graph, layout: TreeLayout) {
        self.graph = graph
        self.layout = layout
        ended = EndedStages(graph)
    }

    mutating func run() {
        result.rows.reserveCapacity(graph.nodes.count)
        if layout.hideEnded {
            for id in graph.nodes.keys where ended.contains(id) { result.hiddenEnded += 1 }
        }
        var stack = Array(topItems().reversed())
        while let item = stack.popLast() {
            switch item {
            case .reference(let id, let depth):
                result.rows.append(TreeRow(id: id, depth: depth, hasChildren: false, isCollapsed: false, isReference: true))
            case .stage(let id, let depth):
                guard let node = graph[id] else { continue }
                let isCollapsed = layout.collapsed.contains(id)
                let feeders = shown(node.feeders)
                guard !isCollapsed else {
                    let hasChildren = !shown(node.children).isEmpty || !feeders.isEmpty
                    result.rows.append(TreeRow(id: id, depth: depth, hasChildren: hasChildren, isCollapsed: true))
                    continue
                }
                let children = items(shown(node.children), parent: id, owner: nil, depth: depth + 1)
                result.rows.append(TreeRow(id: id, depth: depth, hasChildren: !children.isEmpty || !feeders.isEmpty,
                                           isCollapsed: false))
                stack += feeders.reversed().map { .reference($0, depth: depth + 1) }
                stack += children.reversed()
            case .group(let group, let depth):
                let isOpen = layout.expanded.contains(group.id)
                result.rows.append(TreeRow(id: group.newest, depth: depth, hasChildren: true, isCollapsed: !isOpen,
                                           group: group))
                if isOpen { stack += group.members.reversed().map { .stage($0, depth: depth + 1) } }
            case .owner(let held, let depth):
                result.rows.append(TreeRow(id: held.roots[0], depth: depth, hasChildren: true, isCollapsed: false,
                                           ownerHeader: held.owner, ownerPipelines: held.held))
                stack += items(held.roots, parent: nil, owner: held.owner.id, depth: depth + 1).reversed()
            case .owners(let group, let owners, let depth):
                let isOpen = layout.expanded.contains(group.id)
                result.rows.append(TreeRow(id: group.newest, depth: depth, hasChildren: true, isCollapsed: !isOpen,
                                           ownerHeader: group.owner, ownerPipelines: group.pipelines, group: group))
                if isOpen { stack += owners.reversed().map { .owner($0, depth: depth + 1) } }
            }
        }
    }

    /// A stage is shown unless ended stages are hidden and it ended, with its upstream.
    mutating func isShown(_ id: NodeID) -> Bool {
        !layout.hideEnded || !ended.contains(id)
    }

    /// The stages of `ids` that are shown, in order.
    mutating func shown(_ ids: [NodeID]) -> [NodeID] {
        guard layout.hideEnded else { return ids }
        var out: [NodeID] = []
        for id in ids where isShown(id) { out.append(id) }
        return out
    }

    /// The stage's ``GroupKey`` (nil: its own row).
    mutating func stageKey(_ id: NodeID) -> GroupKey? {
        guard let node = graph[id] else { return nil }
        return GroupKey.stage(node, ended: ended.contains(id))
    }

    /// The top of the tree: roots by creation, the roots an owner holds under its heading
    /// at the place of its first root; released owners of the same name whose pipelines
    /// all ended share one heading.
    mutating func topItems() -> [Item] {
        if let root = layout.root { return graph[root] != nil && isShown(root) ? [.stage(root, depth: 0)] : [] }
        var heldBy: [UInt64: [NodeID]] = [:]
        for root in graph.roots {
            if let owner = graph[root]?.ownerID { heldBy[owner, default: []].append(root) }
        }
        enum Entry { case root(NodeID), owner(HeldRoots) }
        var entries: [Entry] = []
        var headed = Set<UInt64>()
        for root in graph.roots {
            guard let owner = graph.owner(of: root) else {
                if isShown(root) { entries.append(.root(root)) }
                continue
            }
            guard headed.insert(owner.id).inserted else { continue }
            let held = heldBy[owner.id] ?? []
            let kept = shown(held)
            if !kept.isEmpty { entries.append(.owner((owner, kept, held.count))) }
        }
        guard layout.grouping else {
            return entries.map {
                switch $0 {
                case .root(let id): return .stage(id, depth: 0)
                case .owner(let held): return .owner(held, depth: 0)
                }
            }
        }
        var keys: [GroupKey?] = []
        for entry in entries {
            switch entry {
            case .root(let id):
                keys.append(stageKey(id))
            case .owner(let held):
                let released = held.owner.releasedNanos != nil
                var allEnded = true
                for root in held.roots where !ended.contains(root) { allEnded = false }
                keys.append(GroupKey.owner(held.owner, released: released, ended: allEnded))
            }
        }
        let clusters = Self.cluster(entries, keys: keys)
        return clusters.map { key, members in
            var roots: [NodeID] = [], owners: [HeldRoots] = []
            for member in members {
                switch member {
                case .root(let id): roots.append(id)
                case .owner(let held): owners.append(held)
                }
            }
            guard let key else {
                return roots.first.map { .stage($0, depth: 0) } ?? .owner(owners[0], depth: 0)
            }
            let id = StageGroup.ID(parent: nil, owner: nil, key: key)
            guard key.isOwner else { return .group(StageGroup(id: id, members: roots, graph: graph), depth: 0) }
            return .owners(StageGroup(id: id, owners: owners.map { ($0.owner, $0.roots) }, graph: graph), owners, depth: 0)
        }
    }

    /// Siblings as items: each on its own row, or, when grouping, ended ones sharing a
    /// key with another folded into one group.
    mutating func items(_ siblings: [NodeID], parent: NodeID?, owner: UInt64?, depth: Int) -> [Item] {
        guard layout.grouping, siblings.count > 1 else { return siblings.map { .stage($0, depth: depth) } }
        var keys: [GroupKey?] = []
        for id in siblings { keys.append(stageKey(id)) }
        let clusters = Self.cluster(siblings, keys: keys)
        return clusters.map { key, members in
            guard let key else { return .stage(members[0], depth: depth) }
            let id = StageGroup.ID(parent: parent, owner: owner, key: key)
            return .group(StageGroup(id: id, members: members, graph: graph), depth: depth)
        }
    }

    /// `entries` in order, where those sharing a key (`keys[i]` is entry i's) with at least
    /// one other are gathered, in order, at the place of the first of them:
    /// `(key, [the members])`. Entries with no key, or a key of their own, come as
    /// `(nil, [entry])`. Linear in the entries.
    static func cluster<Entry>(_ entries: [Entry], keys: [GroupKey?]) -> [(key: GroupKey?, members: [Entry])] {
        var members: [GroupKey: [Entry]] = [:]
        for (entry, key) in zip(entries, keys) {
            if let key { members[key, default: []].append(entry) }
        }
        var out: [(key: GroupKey?, members: [Entry])] = []
        var placed = Set<GroupKey>()
        for (entry, key) in zip(entries, keys) {
            if let key, let group = members[key], group.count > 1 {
                if placed.insert(key).inserted { out.append((key, group)) }
            } else {
                out.append((nil, [entry]))
            }
        }
        return out
    }
}
