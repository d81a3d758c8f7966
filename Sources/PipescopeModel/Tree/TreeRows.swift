import PipescopeGraph

/// One visible line of the pipeline tree.
public struct TreeRow: Hashable, Sendable {
    /// The stage. For an owner heading its first root; for a group its newest member.
    public var id: NodeID
    public var depth: Int
    public var hasChildren: Bool
    public var isCollapsed: Bool
    /// A shared upstream shown again under another branch it feeds (share, multicast):
    /// it points at the stage, whose own row is elsewhere.
    public var isReference = false
    /// A heading naming the owner (a CancellableBag) of the roots below it; `id` is its
    /// first root. Not a stage: it cannot be selected.
    public var ownerHeader: Owner?
    /// For an owner heading: how many pipelines it holds (shown or not).
    public var ownerPipelines = 0
    /// Ended siblings sharing one row (`Future ×18 ✓ finished`); `isCollapsed` is false
    /// while `→` has it open, its members then following one level deeper.
    public var group: StageGroup?

    /// A row that is a stage's own row (not a reference, an owner heading or a group).
    public var isStage: Bool { !isReference && ownerHeader == nil && group == nil }

    /// What selecting this row selects: the stage, the group, or nothing (references
    /// and owner headings are skipped).
    public var selection: TreeSelection? {
        if let group { return .group(group.id) }
        return isStage ? .stage(id) : nil
    }
}

extension Graph {
    /// The tree flattened in display order, every stage on its own row: roots by
    /// creation, each followed by its upstream stages, skipping the insides of collapsed
    /// stages. A stage fed through a subject by an upstream that lives under another
    /// branch gets a reference row. (The inspector's tree also groups ended siblings and
    /// can hide ended stages: see ``TreeLayout``.)
    public func rows(collapsed: Set<NodeID>) -> [TreeRow] {
        TreeLayout(collapsed: collapsed).layout(self).rows
    }
}
