/// Pipescope's own id for a stage: sequential, never reused.
public typealias NodeID = UInt64

/// Everything known about one stage: what it is, and what has happened to it so far.
///
/// A value type whose fields live in one shared box, copied on write: copying a summary
/// (every `graph[id]`, every walk of the graph, every saved point of the history) is
/// one reference count, not one per string and array in it. A tick of a 30,000-stage
/// graph copies each stage several times (lints, pruning, the table's rows), and with
/// the fields inline those copies were most of its time.
public struct NodeSummary: Hashable, Sendable {
    public var id: NodeID {
        get { box.fields.id }
        _modify { yield &fields.id }
    }
    /// The downstream stage, or nil for a root (its subscriber is a sink, assign, …).
    public var parent: NodeID? {
        get { box.fields.parent }
        _modify { yield &fields.parent }
    }
    /// Upstream stages, in the order they subscribed.
    public var children: [NodeID] {
        get { box.fields.children }
        _modify { yield &fields.children }
    }
    /// Short operator name: "Map", "PassthroughSubject".
    public var operatorName: String {
        get { box.fields.operatorName }
        _modify { yield &fields.operatorName }
    }
    public var publisherType: String {
        get { box.fields.publisherType }
        _modify { yield &fields.publisherType }
    }
    /// The subscriber's description: "Sink", "Filter".
    public var subscriber: String {
        get { box.fields.subscriber }
        _modify { yield &fields.subscriber }
    }
    public var thread: String {
        get { box.fields.thread }
        _modify { yield &fields.thread }
    }
    public var createdNanos: Int64 {
        get { box.fields.createdNanos }
        _modify { yield &fields.createdNanos }
    }
    /// Where the program made this stage, when it recorded its own (roots, inner
    /// publishers); see ``NodeInfo/location``. Stages without one are where their
    /// pipeline is: ``Graph/location(of:)`` finds it.
    public var location: SourceLocation? {
        get { box.fields.location }
        _modify { yield &fields.location }
    }
    /// The program's frames that called ``location``, nearest first.
    public var frames: [SourceLocation] {
        get { box.fields.frames }
        _modify { yield &fields.frames }
    }
    public var status: NodeStatus {
        get { box.fields.status }
        _modify { yield &fields.status }
    }
    public var cause: CancelCause? {
        get { box.fields.cause }
        _modify { yield &fields.cause }
    }
    public var error: String? {
        get { box.fields.error }
        _modify { yield &fields.error }
    }
    public var requested: Demand {
        get { box.fields.requested }
        _modify { yield &fields.requested }
    }
    public var values: Int {
        get { box.fields.values }
        _modify { yield &fields.values }
    }
    public var lastValue: String? {
        get { box.fields.lastValue }
        _modify { yield &fields.lastValue }
    }
    /// The stage owning the subscription this stage passes downstream (itself if nil).
    public var subscriptionOwner: NodeID? {
        get { box.fields.subscriptionOwner }
        _modify { yield &fields.subscriptionOwner }
    }
    /// Stages that pass this stage's subscription object straight through (Map, Filter).
    public var sharers: [NodeID] {
        get { box.fields.sharers }
        _modify { yield &fields.sharers }
    }
    /// The stage this one forwards its subscriber to (type erasure); its events are mirrored here.
    public var forwardsTo: NodeID? {
        get { box.fields.forwardsTo }
        _modify { yield &fields.forwardsTo }
    }
    /// An upstream stage was cancelled by someone else (the inspector, an owner): this
    /// stage will receive nothing more, not even a completion.
    public var orphaned: Bool {
        get { box.fields.orphaned }
        _modify { yield &fields.orphaned }
    }
    /// Stages this one also feeds through a subject (share, multicast), besides its parent.
    public var feeds: [NodeID] {
        get { box.fields.feeds }
        _modify { yield &fields.feeds }
    }
    /// Stages that feed this one through a subject but sit elsewhere in the tree.
    public var feeders: [NodeID] {
        get { box.fields.feeders }
        _modify { yield &fields.feeders }
    }
    public var endedNanos: Int64? {
        get { box.fields.endedNanos }
        _modify { yield &fields.endedNanos }
    }
    /// Values and completions that arrived after the stage had ended.
    public var afterEnd: Int {
        get { box.fields.afterEnd }
        _modify { yield &fields.afterEnd }
    }
    /// When the last value arrived (nil before the first).
    public var lastValueNanos: Int64? {
        get { box.fields.lastValueNanos }
        _modify { yield &fields.lastValueNanos }
    }
    /// The newest demand added, oldest first, at most ``recentRequestLimit``.
    public var recentRequests: [DemandRequest] {
        get { box.fields.recentRequests }
        _modify { yield &fields.recentRequests }
    }
    /// The owner holding this root (a CancellableBag it was stored in).
    public var owner: NodeOwner? {
        get { box.fields.owner }
        _modify { yield &fields.owner }
    }
    /// How it broke the promise it was declared with (.pipescopeExpect), if it did.
    public var contractBroken: [String] {
        get { box.fields.contractBroken }
        _modify { yield &fields.contractBroken }
    }
    public static let recentRequestLimit = 4

    /// The stored fields, in the box.
    struct Fields: Hashable {
        var id: NodeID
        var parent: NodeID? = nil
        var children: [NodeID] = []
        var operatorName: String
        var publisherType: String
        var subscriber: String
        var thread: String
        var createdNanos: Int64
        var location: SourceLocation? = nil
        var frames: [SourceLocation] = []
        var status: NodeStatus = .subscribing
        var cause: CancelCause? = nil
        var error: String? = nil
        var requested: Demand = .none
        var values: Int = 0
        var lastValue: String? = nil
        var subscriptionOwner: NodeID? = nil
        var sharers: [NodeID] = []
        var forwardsTo: NodeID? = nil
        var orphaned: Bool = false
        var feeds: [NodeID] = []
        var feeders: [NodeID] = []
        var endedNanos: Int64? = nil
        var afterEnd: Int = 0
        var lastValueNanos: Int64? = nil
        var recentRequests: [DemandRequest] = []
        var owner: NodeOwner? = nil
        var contractBroken: [String] = []
    }

    /// Shared by copies until one of them changes (``fields``).
    private final class Box: @unchecked Sendable {
        /// Written only through a summary that holds the only reference to the box, so
        /// no two accesses can overlap: no dynamic exclusivity check on each read.
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// The fields to change: the box is copied first if another summary shares it.
    private var fields: Fields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    public init(info: NodeInfo) {
        box = Box(Fields(id: info.id, parent: info.parent, operatorName: info.operatorName,
                         publisherType: info.publisherType, subscriber: info.subscriber, thread: info.thread,
                         createdNanos: info.createdNanos, location: info.location, frames: info.frames))
    }

    public static func == (a: NodeSummary, b: NodeSummary) -> Bool {
        a.box === b.box || a.box.fields == b.box.fields
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }

    mutating func noteRequest(_ request: DemandRequest) {
        fields.noteRequest(request)
    }

    /// Demand requested and not yet delivered.
    public var outstanding: Demand { requested.subtracting(values) }

    /// What the stage is, as it was sent when it subscribed (with its parent now).
    public var info: NodeInfo {
        let f = box.fields
        return NodeInfo(id: f.id, parent: f.parent, operatorName: f.operatorName, publisherType: f.publisherType,
                        subscriber: f.subscriber, thread: f.thread, createdNanos: f.createdNanos, location: f.location,
                        frames: f.frames)
    }
}

extension NodeSummary.Fields {
    mutating func noteRequest(_ request: DemandRequest) {
        if recentRequests.count == NodeSummary.recentRequestLimit { recentRequests.removeFirst() }
        recentRequests.append(request)
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
