/// The whole graph at one instant: what a probe sends an inspector that attaches, and
/// what ``Graph/load(_:)`` starts from.
public struct GraphSnapshot: Hashable, Sendable {
    /// Every stage, in id order. Links between them (children, sharers, feeders) are
    /// rebuilt by ``Graph/load(_:)`` from each stage's own fields.
    public var nodes: [NodeSummary] = []
    /// Owners that have held stages, by id.
    public var owners: [UInt64: Owner] = [:]
    /// Events the probe dropped since it started.
    public var dropped: UInt64 = 0
    /// The sequence number of the last event folded into this snapshot.
    public var sequence: UInt64 = 0
    /// ``dropped`` by the pipeline that lost them (its root; 0: stages the probe did not
    /// know yet), as ``Graph/droppedByPipeline`` holds them: an inspector that attaches
    /// after drops says whose they were. Empty from older probes.
    public var droppedByPipeline: [NodeID: UInt64] = [:]
    /// Stage numbers the graph never saw begin (their subscribe was dropped), and the
    /// highest it inserted: a graph loaded from the snapshot knows its lost stages as the
    /// probe's does (see `LostStarts` in Graph+LostStarts.swift). Empty, 0 from older probes.
    public var stageNumberGaps: [Range<NodeID>] = []
    public var highestStage: NodeID = 0
    /// Events the inspector never got because it fell behind: the snapshot replaces them.
    /// 0 for the first snapshot.
    public var skippedEvents: UInt64 = 0
    /// The probe's most recent caused events (values, completions, cancels: the newest
    /// ``recentLimit`` of all, and before them each stage's own last few while the stage
    /// is in the probe's graph, so that a value a stage held long still finds its cause;
    /// oldest first, value texts clipped as the tap clipped them), with
    /// their numbers, causes and threads: an inspector that attaches, or resynchronises,
    /// follows a chain that started before its history through them.
    public var recent: [StageEvent] = []
    /// Whether stages of this snapshot still wait for their source locations (the probe
    /// symbolizes on its own thread; they follow in later batches). False from a probe
    /// that does not say.
    public var locationsPending = false

    /// How many of the newest caused events (of all stages) a probe keeps for ``recent``.
    public static let recentLimit = 4_096

    public init(nodes: [NodeSummary] = [], owners: [UInt64: Owner] = [:], dropped: UInt64 = 0,
                sequence: UInt64 = 0, skippedEvents: UInt64 = 0, recent: [StageEvent] = []) {
        self.recent = recent
        self.nodes = nodes
        self.owners = owners
        self.dropped = dropped
        self.sequence = sequence
        self.skippedEvents = skippedEvents
    }
}
