import PipescopeGraph

/// One step of a ``CauseChain``: one event on one stage, with what the chain shows of it.
///
/// A value event on stage U is a value U delivered to its subscriber (U's downstream
/// stage, or the sink for a root), so a hop names the stage that *delivered*.
public struct CauseHop: Equatable, Sendable {
    /// The event's number (``StageEvent/id``).
    public var id: EventID
    /// Its position in the history; nil when it came from the probe's recent causes
    /// (``History/earlier``), from before the history began.
    public var position: Int?
    public var stage: NodeID
    /// The stage's operator ("Map"); "#ID" when the stage is no longer known.
    public var operatorName: String
    /// Who received it: the downstream stage's operator, or the root's subscriber ("Sink").
    public var receiver: String
    /// The downstream stage it was delivered to; nil for a root (its sink).
    public var receiverStage: NodeID?
    /// The value as text; nil for a completion, failure or cancel. Empty for a value the
    /// probe did not describe.
    public var value: String?
    public var kind: EventKind
    /// A failure's text; a cancel's cause.
    public var detail: String?
    /// The thread it happened on; empty when unknown.
    public var thread: String
    /// Wall-clock time, nanoseconds since 1970.
    public var time: Int64
    /// Where the program made the stage ("Feed.swift:88"), when the graph knows it for
    /// this stage itself (not inherited from its pipeline).
    public var location: String?
    /// For a stage that gathers its inputs into one output (``CauseChain/gathers(_:)``):
    /// the values its upstream delivered to it since its previous output, oldest first.
    public var gathered: [GatheredInput]?
    /// Whether ``gathered`` lists them all: false when the stage's previous output (or
    /// its subscribe) is earlier than the history kept, so earlier inputs are missing.
    public var gatheredAll = true
    /// Set when this event recorded no cause and the chain went on through the event its
    /// inner publisher was made for (the next hop): a flatMap's Future answering a value.
    public var madeFor: MadeFor?

    /// The inner publisher an event came from, and the event it was made for.
    public struct MadeFor: Equatable, Sendable {
        /// The stage that recorded it (``NodeInfo/madeFor``): the event's own, or the
        /// nearest downstream of it that was subscribed inside the delivery.
        public var stage: NodeID
        /// The event being delivered when that stage subscribed: the next hop.
        public var event: EventID

        public init(stage: NodeID, event: EventID) {
            self.stage = stage
            self.event = event
        }
    }

    public init(id: EventID, position: Int?, stage: NodeID, operatorName: String, receiver: String,
                receiverStage: NodeID? = nil, value: String?,
                kind: EventKind, detail: String? = nil, thread: String, time: Int64, location: String? = nil,
                gathered: [GatheredInput]? = nil, gatheredAll: Bool = true) {
        self.id = id
        self.position = position
        self.stage = stage
        self.operatorName = operatorName
        self.receiver = receiver
        self.receiverStage = receiverStage
        self.value = value
        self.kind = kind
        self.detail = detail
        self.thread = thread
        self.time = time
        self.location = location
        self.gathered = gathered
        self.gatheredAll = gatheredAll
    }
}

/// One input a gathering stage (collect, reduce) received: a value its upstream delivered.
public struct GatheredInput: Equatable, Sendable {
    public var id: EventID
    /// The upstream stage that delivered it.
    public var stage: NodeID
    public var value: String
    public var thread: String
    public var time: Int64

    public init(id: EventID, stage: NodeID, value: String, thread: String, time: Int64) {
        self.id = id
        self.stage = stage
        self.value = value
        self.thread = thread
        self.time = time
    }
}

/// How a ``CauseChain`` ends.
public enum CauseChainEnd: Equatable, Sendable {
    /// At its origin: the oldest hop caused itself (a subject's `send` on a quiet thread,
    /// a timer's tick), as the probe recorded it.
    case origin
    /// The oldest hop's cause, numbered here, is earlier than the history (and the
    /// probe's recent causes) kept.
    case earlierThanHistory(EventID)
    /// The oldest hop's cause is further back than the history can number.
    case tooFarBack
    /// The events carry no numbers (a recording made before causes were recorded).
    case notRecorded
    /// The event's kind records no cause (a subscribe, a request): only values,
    /// completions, failures and cancels do (``EventKind/Payload/caused``).
    case kindHasNoCause
}
