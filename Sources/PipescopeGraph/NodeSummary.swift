/// Pipescope's own id for a stage: sequential, never reused.
public typealias NodeID = UInt64

/// Everything known about one stage: what it is, and what has happened to it so far.
///
/// What a stage is and how it is linked (names, thread, location, owner, the stages
/// sharing or fed by it: set once or rarely, most of its strings and arrays) lives in
/// one box shared by copies and copied on write (``Identity``); what happens to it on
/// every event (status, demand, values) is stored inline, where the fold changes it in
/// place. Copying a summary out of the graph (every `graph[id]`, walk and lint) then
/// retains four references instead of seventeen: a tick of a 30,000-stage graph copies
/// each stage several times, and with everything inline those copies were most of it.
/// (With every field boxed a tick was faster still, but a history jump, which changes
/// up to 512 events' stages in a copy of a checkpoint, paid a box copy per stage.)
public struct NodeSummary: Hashable, Sendable {
    public var id: NodeID {
        get { box.identity.id }
        _modify { yield &identity.id }
    }
    /// The downstream stage, or nil for a root (its subscriber is a sink, assign, …).
    public var parent: NodeID?
    /// Upstream stages, in the order they subscribed.
    public var children: [NodeID] = []
    /// Short operator name: "Map", "PassthroughSubject".
    public var operatorName: String {
        get { box.identity.operatorName }
        _modify { yield &identity.operatorName }
    }
    public var publisherType: String {
        get { box.identity.publisherType }
        _modify { yield &identity.publisherType }
    }
    /// The subscriber's description: "Sink", "Filter".
    public var subscriber: String {
        get { box.identity.subscriber }
        _modify { yield &identity.subscriber }
    }
    public var thread: String {
        get { box.identity.thread }
        _modify { yield &identity.thread }
    }
    public var createdNanos: Int64 {
        get { box.identity.createdNanos }
        _modify { yield &identity.createdNanos }
    }
    /// Where the program made this stage, when it recorded its own (roots, inner
    /// publishers); see ``NodeInfo/location``. Stages without one are where their
    /// pipeline is: ``Graph/location(of:)`` finds it.
    public var location: SourceLocation? {
        get { box.identity.location }
        _modify { yield &identity.location }
    }
    /// The program's frames that called ``location``, nearest first.
    public var frames: [SourceLocation] {
        get { box.identity.frames }
        _modify { yield &identity.frames }
    }
    public var status: NodeStatus = .subscribing
    public var cause: CancelCause?
    public var error: String? {
        get { box.identity.error }
        _modify { yield &identity.error }
    }
    public var requested: Demand = .none
    public var values: Int = 0
    public var lastValue: String?
    /// The stage owning the subscription this stage passes downstream (itself if nil).
    public var subscriptionOwner: NodeID?
    /// Stages that pass this stage's subscription object straight through (Map, Filter).
    public var sharers: [NodeID] {
        get { box.identity.sharers }
        _modify { yield &identity.sharers }
    }
    /// The stage this one forwards its subscriber to (type erasure); its events are mirrored here.
    public var forwardsTo: NodeID?
    /// An upstream stage was cancelled by someone else (the inspector, an owner): this
    /// stage will receive nothing more, not even a completion.
    public var orphaned: Bool = false
    /// Stages this one also feeds through a subject (share, multicast), besides its parent.
    public var feeds: [NodeID] {
        get { box.identity.feeds }
        _modify { yield &identity.feeds }
    }
    /// Stages that feed this one through a subject but sit elsewhere in the tree.
    public var feeders: [NodeID] {
        get { box.identity.feeders }
        _modify { yield &identity.feeders }
    }
    public var endedNanos: Int64?
    /// Values and completions that arrived after the stage had ended.
    public var afterEnd: Int = 0
    /// When the last value arrived (nil before the first).
    public var lastValueNanos: Int64?
    /// Its operator's time per value received, and its sink's for a root (see
    /// ``StageTimes``); nil before the first timed value.
    public var times: StageTimes?
    /// The newest demand added, oldest first, at most ``recentRequestLimit``.
    public var recentRequests: [DemandRequest] = []
    /// The owner holding this root (a CancellableBag it was stored in).
    public var owner: NodeOwner? {
        get { box.identity.owner }
        _modify { yield &identity.owner }
    }
    /// How it broke the promise it was declared with (.pipescopeExpect), if it did.
    public var contractBroken: [String] {
        get { box.identity.contractBroken }
        _modify { yield &identity.contractBroken }
    }
    public static let recentRequestLimit = 4

    /// What the stage is and how it is linked: set when it subscribes or links, changed
    /// rarely after (a location found later, an owner, an error, a broken contract).
    struct Identity: Hashable {
        var id: NodeID
        var operatorName: String
        var publisherType: String
        var subscriber: String
        var thread: String
        var createdNanos: Int64
        var location: SourceLocation? = nil
        var frames: [SourceLocation] = []
        var error: String? = nil
        var sharers: [NodeID] = []
        var feeds: [NodeID] = []
        var feeders: [NodeID] = []
        var owner: NodeOwner? = nil
        var contractBroken: [String] = []
    }

    /// Shared by copies until one of them changes its identity (``identity``). Equal
    /// and hashed by what it holds, so that the summary's own `==` and hash, made by
    /// the compiler from its stored properties, compare every field.
    private final class Box: Hashable, @unchecked Sendable {
        /// Written only through a summary that holds the only reference to the box, so
        /// no two accesses can overlap: no dynamic exclusivity check on each read.
        @exclusivity(unchecked) var identity: Identity
        init(_ identity: Identity) { self.identity = identity }

        static func == (a: Box, b: Box) -> Bool { a === b || a.identity == b.identity }
        func hash(into hasher: inout Hasher) { hasher.combine(identity) }
    }

    private var box: Box

    /// The identity to change: the box is copied first if another summary shares it.
    private var identity: Identity {
        get { box.identity }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.identity) }
            yield &box.identity
        }
    }

    public init(info: NodeInfo) {
        parent = info.parent
        box = Box(Identity(id: info.id, operatorName: info.operatorName, publisherType: info.publisherType,
                           subscriber: info.subscriber, thread: info.thread, createdNanos: info.createdNanos,
                           location: info.location, frames: info.frames))
    }

    /// Changes ``times`` in place, made empty first if there were none.
    mutating func withTimes(_ change: (inout StageTimes) -> Void) {
        if times == nil { times = StageTimes() }
        change(&times!)
    }

    mutating func noteRequest(_ request: DemandRequest) {
        if recentRequests.count == Self.recentRequestLimit { recentRequests.removeFirst() }
        recentRequests.append(request)
    }

    /// Demand requested and not yet delivered.
    public var outstanding: Demand { requested.subtracting(values) }

    /// What the stage is, as it was sent when it subscribed (with its parent now).
    public var info: NodeInfo {
        let i = box.identity
        return NodeInfo(id: i.id, parent: parent, operatorName: i.operatorName, publisherType: i.publisherType,
                        subscriber: i.subscriber, thread: i.thread, createdNanos: i.createdNanos, location: i.location,
                        frames: i.frames)
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
