/// Pipescope's own id for a stage: sequential, never reused.
public typealias NodeID = UInt64

/// Everything known about one stage: what it is, and what has happened to it so far.
///
/// A summary is one reference to a box, shared by copies and copied on write. A copy of
/// the graph (every history checkpoint, a snapshot) then costs 8 bytes a stage, and the
/// live graph's first change to a stage after a checkpoint copies that stage alone, not
/// every stage of the graph (at 30,000 stages that whole copy would be most of the work of
/// folding a batch). Inside the box, what the stage is and how it is linked (its names,
/// thread, location, owner; set once or rarely) sits in a second box of its own, so the
/// copy the fold makes of a shared stage is the part it changes, about 120 bytes; the
/// optional numbers are stored as plain numbers (0 or ``Fields/noTime`` for none) and
/// the delivery times, which most stages never get, in a box of their own. Copying a
/// summary out of the graph (every `graph[id]`, walk and lint) retains one reference.
public struct NodeSummary: Hashable, Sendable {
    // MARK: What it is (set once or rarely)

    public var id: NodeID {
        get { box.fields.identity.fields.id }
        _modify { yield &fields.identityFields.id }
    }
    /// Short operator name: "Map", "PassthroughSubject".
    public var operatorName: String {
        get { box.fields.identity.fields.operatorName }
        _modify { yield &fields.identityFields.operatorName }
    }
    public var publisherType: String {
        get { box.fields.identity.fields.publisherType }
        _modify { yield &fields.identityFields.publisherType }
    }
    /// The subscriber's description: "Sink", "Filter".
    public var subscriber: String {
        get { box.fields.identity.fields.subscriber }
        _modify { yield &fields.identityFields.subscriber }
    }
    public var thread: String {
        get { box.fields.identity.fields.thread }
        _modify { yield &fields.identityFields.thread }
    }
    public var createdNanos: Int64 {
        get { box.fields.identity.fields.createdNanos }
        _modify { yield &fields.identityFields.createdNanos }
    }
    /// Where the program made this stage, when it recorded its own (roots, inner
    /// publishers); see ``NodeInfo/location``. Stages without one are where their
    /// pipeline is: ``Graph/location(of:)`` finds it.
    public var location: SourceLocation? {
        get { box.fields.identity.fields.location }
        _modify { yield &fields.identityFields.location }
    }
    /// The program's frames that called ``location``, nearest first.
    public var frames: [SourceLocation] {
        get { box.fields.identity.fields.frames }
        _modify { yield &fields.identityFields.frames }
    }
    /// The event being delivered when it subscribed: the upstream value an inner
    /// publisher was made for (``NodeInfo/madeFor``); 0 for none.
    public var madeFor: EventID {
        get { box.fields.identity.fields.madeFor }
        _modify { yield &fields.identityFields.madeFor }
    }
    /// Which publisher it was subscribed to (``NodeInfo/publisher``); 0 when unknown.
    public var publisher: UInt64 {
        get { box.fields.identity.fields.publisher }
        _modify { yield &fields.identityFields.publisher }
    }
    /// Its publisher is a subject or erases one (``NodeInfo/subjectSource``).
    public var subjectSource: Bool {
        get { box.fields.identity.fields.subjectSource }
        _modify { yield &fields.identityFields.subjectSource }
    }
    /// Where the stage's own code is (``NodeInfo/code``).
    public var code: SourceLocation? {
        get { box.fields.identity.fields.code }
        _modify { yield &fields.identityFields.code }
    }
    /// The function that built this inner publisher (``NodeInfo/builtBy``).
    public var builtBy: SourceLocation? {
        get { box.fields.identity.fields.builtBy }
        _modify { yield &fields.identityFields.builtBy }
    }
    public var error: String? {
        get { box.fields.identity.fields.error }
        _modify { yield &fields.identityFields.error }
    }
    /// Stages that pass this stage's subscription object straight through (Map, Filter).
    public var sharers: [NodeID] {
        get { box.fields.identity.fields.sharers }
        _modify { yield &fields.identityFields.sharers }
    }
    /// Stages this one also feeds through a subject (share, multicast), besides its parent.
    public var feeds: [NodeID] {
        get { box.fields.identity.fields.feeds }
        _modify { yield &fields.identityFields.feeds }
    }
    /// Stages that feed this one through a subject but sit elsewhere in the tree.
    public var feeders: [NodeID] {
        get { box.fields.identity.fields.feeders }
        _modify { yield &fields.identityFields.feeders }
    }
    /// The id of the owner holding this root (a CancellableBag it was stored in): the
    /// graph's ``Graph/owners`` has its name and release (``Graph/owner(of:)``).
    public var ownerID: UInt64? {
        get { box.fields.identity.fields.ownerID }
        _modify { yield &fields.identityFields.ownerID }
    }
    /// How it broke the promise it was declared with (.pipescopeExpect), if it did.
    public var contractBroken: [String] {
        get { box.fields.identity.fields.contractBroken }
        _modify { yield &fields.identityFields.contractBroken }
    }

    // MARK: What has happened to it (changed by the fold)

    /// The downstream stage, or nil for a root (its subscriber is a sink, assign, …).
    public var parent: NodeID? {
        get { let raw = box.fields.parentRaw; return raw == 0 ? nil : raw }
        set { fields.parentRaw = newValue ?? 0 }
    }
    /// The stage owning the subscription this stage passes downstream (itself if nil).
    public var subscriptionOwner: NodeID? {
        get { let raw = box.fields.ownerRaw; return raw == 0 ? nil : raw }
        set { fields.ownerRaw = newValue ?? 0 }
    }
    /// The stage this one forwards its subscriber to (type erasure); its events are mirrored here.
    public var forwardsTo: NodeID? {
        get { let raw = box.fields.forwardsToRaw; return raw == 0 ? nil : raw }
        set { fields.forwardsToRaw = newValue ?? 0 }
    }
    /// Upstream stages, in the order they subscribed.
    public var children: [NodeID] {
        get { box.fields.children }
        _modify { yield &fields.children }
    }
    public var status: NodeStatus {
        get { box.fields.status }
        _modify { yield &fields.status }
    }
    public var cause: CancelCause? {
        get { box.fields.cause }
        _modify { yield &fields.cause }
    }
    public var requested: Demand {
        get { box.fields.requested }
        _modify { yield &fields.requested }
    }
    public var values: Int {
        get { box.fields.values }
        _modify { yield &fields.values }
    }
    /// The newest value's words (nil before the first value that had some), made from
    /// ``lastEventValue`` when asked.
    public var lastValue: String? {
        get {
            if case .none = box.fields.lastEventValue { return nil }
            return box.fields.lastEventValue.text
        }
        set { fields.lastEventValue = newValue.map { .text($0) } ?? .none }
    }
    /// The newest value as its event carried it (a scalar stays a number until shown):
    /// ``EventValue/none`` before the first, `.text("")` for an empty text.
    public var lastEventValue: EventValue {
        get { box.fields.lastEventValue }
        _modify { yield &fields.lastEventValue }
    }
    /// An upstream stage was cancelled by someone else (the inspector, an owner): this
    /// stage will receive nothing more, not even a completion.
    public var orphaned: Bool {
        get { box.fields.orphaned }
        _modify { yield &fields.orphaned }
    }
    /// Values and completions that arrived after the stage had ended.
    public var afterEnd: Int {
        get { box.fields.afterEnd }
        _modify { yield &fields.afterEnd }
    }
    /// The newest demand added, oldest first, at most ``recentRequestLimit``.
    public var recentRequests: [DemandRequest] {
        get { box.fields.recentRequests }
        _modify { yield &fields.recentRequests }
    }
    public var endedNanos: Int64? {
        get { let raw = box.fields.endedRaw; return raw == Fields.noTime ? nil : raw }
        set { fields.endedRaw = newValue ?? Fields.noTime }
    }
    /// When the last value arrived (nil before the first).
    public var lastValueNanos: Int64? {
        get { let raw = box.fields.lastValueRaw; return raw == Fields.noTime ? nil : raw }
        set { fields.lastValueRaw = newValue ?? Fields.noTime }
    }
    /// When the value of ``lastValue`` arrived: the newest value that had words (nil
    /// before the first; unknown, also nil, in a recording made before it was kept).
    public var lastDescribedNanos: Int64? {
        get { let raw = box.fields.lastDescribedRaw; return raw == Fields.noTime ? nil : raw }
        set { fields.lastDescribedRaw = newValue ?? Fields.noTime }
    }
    /// Values that arrived after ``lastValue``'s and had no words (sampled: at most one
    /// value per stage per flush window is described; see ``FlushInterval``): how much
    /// newer than "last" the stage's newest value is. Every value when none had words.
    public var undescribedSince: Int {
        get { box.fields.undescribedSince }
        _modify { yield &fields.undescribedSince }
    }
    /// Its operator's time per value received, and its sink's for a root (see
    /// ``StageTimes``); nil before the first timed value.
    public var times: StageTimes? {
        get { box.fields.times?.value }
        set { fields.times = newValue.map(TimesBox.init) }
    }

    /// The longest its operator's own code (or a root's sink) took on one value: 0
    /// before any. Read in place, without copying ``times``' histograms: a lint asks it
    /// of every stage before it looks further.
    public var longestTime: Int64 {
        max(box.fields.times?.value.own.max ?? 0, box.fields.times?.value.sink.max ?? 0)
    }

    /// For a `flatMap`: what its inner publishers answered, in the order of the values
    /// they were made for (``InnerAnswers``); nil for other stages and before its first
    /// input.
    public var innerAnswers: InnerAnswers? {
        get { box.fields.answers?.value }
        set { fields.answers = newValue.map(AnswersBox.init) }
    }

    /// Its part in its parent's merge, when its parent is a `flatMap`.
    var mergeRole: MergeRole {
        get { box.fields.mergeRole }
        set { fields.mergeRole = newValue }
    }

    mutating func updateAnswers(_ change: (inout InnerAnswers) -> Void) {
        fields.updateAnswers(change)
    }

    public static let recentRequestLimit = 4

    /// What has happened to the stage, and a reference to what it is.
    struct Fields: Hashable {
        static let noTime = Int64.min
        var identity: IdentityBox
        var parentRaw: NodeID = 0
        var ownerRaw: NodeID = 0
        var forwardsToRaw: NodeID = 0
        var endedRaw: Int64 = noTime
        var lastValueRaw: Int64 = noTime
        var lastDescribedRaw: Int64 = noTime
        var times: TimesBox? = nil
        var answers: AnswersBox? = nil
        var mergeRole: MergeRole = .none
        var children: [NodeID] = []
        var status: NodeStatus = .subscribing
        var cause: CancelCause? = nil
        var requested: Demand = .none
        var values: Int = 0
        var lastEventValue: EventValue = .none
        var orphaned: Bool = false
        var afterEnd: Int = 0
        var undescribedSince: Int = 0
        var recentRequests: [DemandRequest] = []
    }

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
        var madeFor: EventID = 0
        var publisher: UInt64 = 0
        var subjectSource = false
        var code: SourceLocation? = nil
        var builtBy: SourceLocation? = nil
        var error: String? = nil
        var sharers: [NodeID] = []
        var feeds: [NodeID] = []
        var feeders: [NodeID] = []
        var ownerID: UInt64? = nil
        var contractBroken: [String] = []
    }

    /// Shared by copies until one of them changes (``fields``). Equal and hashed by what
    /// it holds, so that the summary's own `==` and hash compare every field.
    private final class Box: Hashable, @unchecked Sendable {
        /// Written only through a summary that holds the only reference to the box, so
        /// no two accesses can overlap: no dynamic exclusivity check on each read.
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }

        static func == (a: Box, b: Box) -> Bool { a === b || a.fields == b.fields }
        func hash(into hasher: inout Hasher) { hasher.combine(fields) }
    }

    /// ``Identity``'s box: shared by every version of the stage the fold makes, copied
    /// only when one of them changes what the stage is.
    final class IdentityBox: Hashable, @unchecked Sendable {
        @exclusivity(unchecked) var fields: Identity
        init(_ fields: Identity) { self.fields = fields }

        static func == (a: IdentityBox, b: IdentityBox) -> Bool { a === b || a.fields == b.fields }
        func hash(into hasher: inout Hasher) { hasher.combine(fields) }
    }

    /// The delivery times' box (three histograms, 120 bytes): most stages have none.
    final class TimesBox: Hashable, @unchecked Sendable {
        @exclusivity(unchecked) var value: StageTimes
        init(_ value: StageTimes) { self.value = value }

        static func == (a: TimesBox, b: TimesBox) -> Bool { a === b || a.value == b.value }
        func hash(into hasher: inout Hasher) { hasher.combine(value) }
    }

    /// A flatMap's ``InnerAnswers``' box: only flatMaps have one.
    final class AnswersBox: Hashable, @unchecked Sendable {
        @exclusivity(unchecked) var value: InnerAnswers
        init(_ value: InnerAnswers) { self.value = value }

        static func == (a: AnswersBox, b: AnswersBox) -> Bool { a === b || a.value == b.value }
        func hash(into hasher: inout Hasher) { hasher.combine(value) }
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
        let identity = Identity(id: info.id, operatorName: info.operatorName, publisherType: info.publisherType,
                                subscriber: info.subscriber, thread: info.thread, createdNanos: info.createdNanos,
                                location: info.location, frames: info.frames, madeFor: info.madeFor,
                                publisher: info.publisher, subjectSource: info.subjectSource, code: info.code,
                                builtBy: info.builtBy)
        box = Box(Fields(identity: IdentityBox(identity), parentRaw: info.parent ?? 0))
    }

    /// Adds a value's delivery times: the operator's own and with what it called
    /// downstream (`sink` false), or a root's sink's (`sink` true).
    mutating func addTimes(own: Int64, withDownstream: Int64, sink: Bool) {
        fields.addTimes(own: own, withDownstream: withDownstream, sink: sink)
    }

    mutating func noteRequest(_ request: DemandRequest) {
        if recentRequests.count == Self.recentRequestLimit { recentRequests.removeFirst() }
        recentRequests.append(request)
    }

    /// Demand requested and not yet delivered.
    public var outstanding: Demand { requested.subtracting(values) }

    /// What the stage is, as it was sent when it subscribed (with its parent now).
    public var info: NodeInfo {
        let i = box.fields.identity.fields
        return NodeInfo(id: i.id, parent: parent, operatorName: i.operatorName, publisherType: i.publisherType,
                        subscriber: i.subscriber, thread: i.thread, createdNanos: i.createdNanos, location: i.location,
                        frames: i.frames, madeFor: i.madeFor, publisher: i.publisher, subjectSource: i.subjectSource,
                        code: i.code, builtBy: i.builtBy)
    }
}

extension NodeSummary.Fields {
    /// ``identity``'s fields, to change: its box is copied first if another version of
    /// the stage shares it.
    var identityFields: NodeSummary.Identity {
        get { identity.fields }
        _modify {
            if !isKnownUniquelyReferenced(&identity) { identity = NodeSummary.IdentityBox(identity.fields) }
            yield &identity.fields
        }
    }

    mutating func updateAnswers(_ change: (inout InnerAnswers) -> Void) {
        if answers == nil {
            answers = NodeSummary.AnswersBox(InnerAnswers())
        } else if !isKnownUniquelyReferenced(&answers!) {
            answers = NodeSummary.AnswersBox(answers!.value)
        }
        change(&answers!.value)
    }

    mutating func addTimes(own: Int64, withDownstream: Int64, sink: Bool) {
        if times == nil {
            times = NodeSummary.TimesBox(StageTimes())
        } else if !isKnownUniquelyReferenced(&times!) {
            times = NodeSummary.TimesBox(times!.value)
        }
        if sink {
            times!.value.sink.add(own)
        } else {
            times!.value.own.add(own)
            times!.value.withDownstream.add(withDownstream)
        }
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

