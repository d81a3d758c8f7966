/// What happened to a stage. The raw values are the wire protocol's `EventKind` numbers,
/// so converting is a copy of one byte.
public enum EventKind: UInt8, Hashable, Sendable, CaseIterable {
    /// A kind this build does not know (a newer probe): ignored by the fold.
    case unknown = 0
    /// A new stage; its ``NodeInfo`` travels with the batch.
    case subscribe = 1
    /// The stage received its subscription; `other` is the stage owning that object.
    case subscription = 2
    /// `demand` requested through `request(_:)`.
    case request = 3
    /// A value delivered to the stage's subscriber; `text` is its description when captured.
    case value = 4
    /// `demand` returned by the subscriber's `receive(_:)`.
    case demand = 5
    case finished = 6
    /// `text` is the error.
    case failed = 7
    /// `cause` says by whom.
    case cancelled = 8
    /// The stage forwards its subscriber unchanged to `other` (type erasure): `other`'s
    /// events are mirrored onto it.
    case forward = 9
    /// A root subscribed with nothing on the thread's stack turned out to be upstream of
    /// `other` (subscribe(on:)): it moves under `other`.
    case adopt = 10
    /// The stage delivers into a subject that stage `other` publishes: it feeds `other` too.
    case feeds = 11
    /// The root now belongs to owner `other`, named `text` (a CancellableBag).
    case owned = 12
    /// Owner `other` was released; `node` is 0.
    case ownerReleased = 13
    /// The stage broke the promise it was declared with; `text` says how.
    case contractBroken = 14
    /// How long a value's delivery took (``StageEvent/selfNanos``), when it ended after
    /// the batch carrying the value had gone: `causedBy` is the value. Rare, and always a
    /// slow one.
    case delivered = 15
}

// MARK: - What each kind carries

extension EventKind {
    /// What an event of one kind carries besides its stage and time.
    public struct Payload: Hashable, Sendable {
        /// The one field it fills: ``StageEvent/demand``, ``StageEvent/other`` or
        /// ``StageEvent/cause``; an event never fills two (the wire's columns and the
        /// history's entries rely on it).
        public var field: Field
        /// Whether it may carry ``StageEvent/text``.
        public var text: Bool
        /// Whether it records what caused it and on which thread (``StageEvent/causedBy``,
        /// ``StageEvent/thread``): the events that flow through a pipeline.
        public var caused: Bool
        /// Whether it records how long its delivery took (``StageEvent/selfNanos``).
        public var timed: Bool

        public enum Field: Hashable, Sendable {
            case none, demand, other, cause
        }

        public init(_ field: Field, text: Bool = false, caused: Bool = false, timed: Bool = false) {
            self.field = field
            self.text = text
            self.caused = caused
            self.timed = timed
        }
    }

    /// The kind in a word, as the event log, the status line and a value's chain say it:
    /// "value", "cancelled", "owner released".
    public var word: String {
        switch self {
        case .subscribe: return "subscribe"
        case .subscription: return "subscription"
        case .request: return "request"
        case .value: return "value"
        case .demand: return "demand"
        case .finished: return "finished"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .forward: return "forward"
        case .adopt: return "adopt"
        case .feeds: return "feeds"
        case .owned: return "owned"
        case .ownerReleased: return "owner released"
        case .contractBroken: return "contract broken"
        case .delivered: return "delivered"
        case .unknown: return "event"
        }
    }

    /// What events of this kind carry: declared here, once, for every kind. The wire's
    /// columns (`BatchPacking`), the tap's raw events, the history's entries and the
    /// round-trip tests read it.
    ///
    /// Adding a kind: add its case and its payload here, and its number to `EventKind` in
    /// Resources/pipescope.proto (then scripts/generate-proto.sh). The codecs follow from
    /// the payload; the compiler stops at every `switch` that must decide what the kind
    /// means (none has a `default:`), and they are, as `EventKindTests` checks:
    /// - `PipescopeGraph/EventKind.swift`: this payload, and the kind in a word
    /// - `PipescopeGraph/Graph.swift`: the fold
    /// - `PipescopeGraph/Graph+LostStarts.swift`: which events create a stage whose subscribe was dropped
    /// - `PipescopeModel/Timeline/AppState.Timeline.swift`: which kinds mark a timeline lane
    /// - `PipescopeModel/Table/PipelineActivity.swift`: which kinds move stages between pipelines
    /// - `PipescopeModel/Causes/CauseChain.swift`: what a hop of a value's chain says beside its value
    /// - `PipescopeModel/Causes/CauseChainText.swift`: a chain's words for each kind
    /// - `PipescopeViews/EventLogView.swift`: the event log's words
    /// - `PipescopeViews/EventSubject.swift`: whom the event is about (a stage or an owner)
    /// - `PipescopeViews/StatusBar.swift`: the history line
    /// - `PipescopeExport/Walk/TraceWalk.swift`: what a trace draws, in every format
    public var payload: Payload {
        switch self {
        case .unknown, .subscribe: return Payload(.none)
        case .finished: return Payload(.none, caused: true)
        case .subscription, .forward, .adopt, .feeds: return Payload(.other)
        case .request, .demand: return Payload(.demand)
        case .value: return Payload(.none, text: true, caused: true, timed: true)
        case .failed: return Payload(.none, text: true, caused: true)
        case .contractBroken: return Payload(.none, text: true)
        case .cancelled: return Payload(.cause, caused: true)
        case .delivered: return Payload(.none, caused: true, timed: true)
        case .owned, .ownerReleased: return Payload(.other, text: true)
        }
    }

    /// The kind a wire number names; ``unknown`` for a number this build does not know
    /// (a newer probe's kind), so it is skipped, never misread.
    @inline(__always)
    public init<Number: BinaryInteger>(wireNumber: Number) {
        self = UInt8(exactly: wireNumber).flatMap(EventKind.init(rawValue:)) ?? .unknown
    }
}
