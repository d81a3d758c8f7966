/// Pipescope's own id for a stage: sequential, never reused.
public typealias NodeID = UInt64

/// Everything known about one stage: what it is, and what has happened to it so far.
public struct NodeSummary: Hashable, Sendable {
    public var id: NodeID
    /// The downstream stage, or nil for a root (its subscriber is a sink, assign, …).
    public var parent: NodeID?
    /// Upstream stages, in the order they subscribed.
    public var children: [NodeID] = []
    /// Short operator name: "Map", "PassthroughSubject".
    public var operatorName: String
    public var publisherType: String
    /// The subscriber's description: "Sink", "Filter".
    public var subscriber: String
    public var thread: String
    public var createdNanos: Int64
    /// Where the program made this stage, when it recorded its own (roots, inner
    /// publishers); see ``NodeInfo/location``. Stages without one are where their
    /// pipeline is: ``Graph/location(of:)`` finds it.
    public var location: SourceLocation?
    /// The program's frames that called ``location``, nearest first.
    public var frames: [SourceLocation] = []

    public var status: NodeStatus = .subscribing
    public var cause: CancelCause?
    public var error: String?
    public var requested: Demand = .none
    public var values: Int = 0
    public var lastValue: String?
    /// The stage owning the subscription this stage passes downstream (itself if nil).
    public var subscriptionOwner: NodeID?
    /// Stages that pass this stage's subscription object straight through (Map, Filter).
    public var sharers: [NodeID] = []
    /// The stage this one forwards its subscriber to (type erasure); its events are mirrored here.
    public var forwardsTo: NodeID?
    /// An upstream stage was cancelled by someone else (the inspector, an owner): this
    /// stage will receive nothing more, not even a completion.
    public var orphaned = false
    /// Stages this one also feeds through a subject (share, multicast), besides its parent.
    public var feeds: [NodeID] = []
    /// Stages that feed this one through a subject but sit elsewhere in the tree.
    public var feeders: [NodeID] = []
    public var endedNanos: Int64?
    /// Values and completions that arrived after the stage had ended.
    public var afterEnd = 0
    /// When the last value arrived (nil before the first).
    public var lastValueNanos: Int64?
    /// The newest demand added, oldest first, at most ``recentRequestLimit``.
    public var recentRequests: [DemandRequest] = []
    public static let recentRequestLimit = 4
    /// The owner holding this root (a CancellableBag it was stored in).
    public var owner: NodeOwner?
    /// How it broke the promise it was declared with (.pipescopeExpect), if it did.
    public var contractBroken: [String] = []

    public init(info: NodeInfo) {
        id = info.id
        parent = info.parent
        operatorName = info.operatorName
        publisherType = info.publisherType
        subscriber = info.subscriber
        thread = info.thread
        createdNanos = info.createdNanos
        location = info.location
        frames = info.frames
    }

    mutating func noteRequest(_ request: DemandRequest) {
        if recentRequests.count == Self.recentRequestLimit { recentRequests.removeFirst() }
        recentRequests.append(request)
    }

    /// Demand requested and not yet delivered.
    public var outstanding: Demand { requested.subtracting(values) }

    /// What the stage is, as it was sent when it subscribed (with its parent now).
    public var info: NodeInfo {
        NodeInfo(id: id, parent: parent, operatorName: operatorName, publisherType: publisherType,
                 subscriber: subscriber, thread: thread, createdNanos: createdNanos, location: location,
                 frames: frames)
    }
}

/// Demand added to a stage: by its subscriber's `request(_:)`, or returned from its
/// `receive(_:)`.
public struct DemandRequest: Hashable, Sendable {
    public var time: Int64
    public var demand: Demand
    /// True when returned from `receive(_:)` rather than asked with `request(_:)`.
    public var returned: Bool

    public init(time: Int64, demand: Demand, returned: Bool) {
        self.time = time
        self.demand = demand
        self.returned = returned
    }
}

/// Which owner holds a root stage.
public struct NodeOwner: Hashable, Sendable {
    public var id: UInt64
    public var name: String

    public init(id: UInt64, name: String) {
        self.id = id
        self.name = name
    }
}
