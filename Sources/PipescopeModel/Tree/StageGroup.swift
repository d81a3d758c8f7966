import PipescopeGraph

// MARK: - The grouping rule

/// What makes ended siblings "the same stage made again", so that they share one row.
///
/// The parts are compared in order. Two siblings with equal keys are one group; a stage
/// with no key (``stage(_:ended:)`` returned nil) always has its own row.
///
/// ```swift
/// GroupKey.stage(future, ended: true)   // operator, publisher type, status
/// ```
public struct GroupKey: Hashable, Sendable {
    /// What is compared: for a stage its operator, its publisher's type and its status;
    /// for an owner heading its name.
    public let parts: [String]
    /// An owner heading (a released CancellableBag) rather than a stage.
    public let isOwner: Bool

    /// **The** grouping rule for stages, in one place: ended stages (the stage and every
    /// stage upstream of it finished, failed or were cancelled) group by operator, publisher
    /// type (which spells the upstream chain: `Map<Future<String, Never>, String>`),
    /// status and the stage's own source location (where it was subscribed, when the tap
    /// recorded one). Live stages get no key: they are what is being debugged, can be cancelled,
    /// and are never hidden inside a group.
    static func stage(_ node: NodeSummary, ended: Bool) -> GroupKey? {
        guard ended else { return nil }
        var parts = [node.operatorName, node.publisherType, node.status.rawValue]
        if let place = node.location { parts.append("\(place.file ?? place.function ?? "?"):\(place.line ?? 0)") }
        return GroupKey(parts: parts, isOwner: false)
    }

    /// Released owners with the same name whose pipelines have all ended (a screen opened
    /// and closed again and again) share one heading. An owner still holding a live
    /// pipeline (an owner leak) keeps its own.
    static func owner(_ owner: Owner, released: Bool, ended: Bool) -> GroupKey? {
        guard released, ended else { return nil }
        return GroupKey(parts: [owner.name], isOwner: true)
    }
}

// MARK: - A group's row

/// Siblings under one parent (or one owner, or the top of the tree) that share a
/// ``GroupKey``, shown as one row: `Future ×18 ✓ finished`. Its totals are computed once,
/// when the rows are derived, so drawing it never walks the members.
public struct StageGroup: Hashable, Sendable {
    /// Which group this is, stable while its members come and go: `→` keeps it open.
    public struct ID: Hashable, Sendable {
        /// The stage the members feed; nil at the top of the tree or under an owner.
        public var parent: NodeID?
        /// The owner heading the members are under, if any.
        public var owner: UInt64?
        public var key: GroupKey
    }

    public var id: ID
    /// The grouped stages, oldest first. For owner headings: the roots they held.
    public var members: [NodeID]
    /// The stages (or owner headings) the row stands for.
    public var count: Int
    /// The members' common status (nil for owner headings, whose pipelines differ).
    public var status: NodeStatus?
    /// Values delivered, summed over the members.
    public var values: Int
    /// Demand requested, summed over the members (unlimited if any asked for unlimited).
    public var requested: Demand
    /// The newest member (ids are sequential, never reused). For owner headings: the
    /// newest root.
    public var newest: NodeID
    /// When the last member ended.
    public var lastEndedNanos: Int64?
    /// For owner headings: the newest owner, and the pipelines all of them held.
    public var owner: Owner?
    public var pipelines = 0

    /// A group of stages, totalled from the graph.
    init(id: ID, members: [NodeID], graph: Graph) {
        self.id = id
        self.members = members
        count = members.count
        var values = 0, requested = Demand.none, newest: NodeID = 0, ended: Int64?
        for member in members {
            guard let node = graph[member] else { continue }
            values &+= node.values
            requested = requested + node.requested
            newest = max(newest, member)
            if let end = node.endedNanos { ended = max(ended ?? end, end) }
        }
        self.values = values
        self.requested = requested
        self.newest = newest
        lastEndedNanos = ended
        status = id.key.isOwner ? nil : graph[newest]?.status
    }

    /// A group of owner headings, each with the roots it held.
    init(id: ID, owners: [(owner: Owner, roots: [NodeID])], graph: Graph) {
        self.init(id: id, members: owners.flatMap(\.roots), graph: graph)
        count = owners.count
        pipelines = members.count
        owner = owners.max { ($0.roots.max() ?? 0) < ($1.roots.max() ?? 0) }?.owner
    }
}

/// What the tree's selection is on: one stage's row, or a group's row.
///
/// A group row stands for stages the user cannot see, so keys that act on one stage
/// (`c` cancel, `v` watch) refuse it and say how to open the group.
public enum TreeSelection: Hashable, Sendable {
    case stage(NodeID)
    case group(StageGroup.ID)
}
