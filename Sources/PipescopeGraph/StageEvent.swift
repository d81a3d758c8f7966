/// An event's number in its program (``StageEvent/id``): 1, 2, 3… in recording order.
public typealias EventID = UInt64

/// One thing that happened to one stage: what the tap records, the wire carries, the
/// history keeps and the graph folds.
///
/// ```swift
/// graph.apply(StageEvent(.value, node: 3, time: now, value: .int(42)))
/// graph.apply(StageEvent(.failed, node: 3, time: now, text: "timeout"))
/// graph.apply(StageEvent(.request, node: 3, time: now, demand: .unlimited))
/// graph.apply(StageEvent(.cancelled, node: 3, time: now, cause: .inspector))
/// ```
public struct StageEvent: Hashable, Sendable {
    // Stored in this order, the words last, so that the small fields fill what would
    // otherwise be padding: 112 bytes (120 with the words as a String).
    public var node: NodeID
    /// Wall clock, nanoseconds since 1970.
    public var time: Int64
    /// The other stage (or owner) of the kinds that link two: subscription, forward,
    /// adopt, feeds, owned, owner released. 0 when none.
    public var other: NodeID
    /// The probe's number for this event: events it ever recorded, counting from 1, in
    /// the order it recorded them. 0 when unknown (a recording made before events were
    /// numbered).
    public var id: EventID = 0
    /// The event this one happened because of, for the kinds that record it
    /// (``EventKind/Payload/caused``): the delivery it ran inside on its thread, or the
    /// input an asynchronous operator received. 0 when it caused itself (a subject's
    /// `send` on a quiet thread) or is not known.
    public var causedBy: EventID = 0
    /// A value's delivery: nanoseconds spent in the receiving operator's own code
    /// (``selfNanos``) and with the stages downstream that it called (``totalNanos``).
    /// 0 when not measured.
    public var selfNanos: Int64 = 0
    public var totalNanos: Int64 = 0
    /// The thread it happened on, for the kinds that record causes; empty when unknown.
    public var thread: String = ""
    /// Request and demand events: how much.
    public var demand: Demand
    public var kind: EventKind
    /// Who cancelled, for a cancel.
    public var cause: CancelCause?
    /// A failure's text, a captured value (its description, or a scalar kept as its
    /// number), an owner's name, a broken contract. ``EventValue/none`` when none (a value
    /// that was not described).
    public var value: EventValue

    @inlinable
    public init(_ kind: EventKind, node: NodeID, time: Int64, demand: Demand = .none, other: NodeID = 0,
                cause: CancelCause? = nil, text: String = "") {
        self.init(kind, node: node, time: time, demand: demand, other: other, cause: cause, value: EventValue(text: text))
    }

    @inlinable
    public init(_ kind: EventKind, node: NodeID, time: Int64, demand: Demand = .none, other: NodeID = 0,
                cause: CancelCause? = nil, value: EventValue) {
        self.kind = kind
        self.node = node
        self.time = time
        self.demand = demand
        self.other = other
        self.cause = cause
        self.value = value
    }

    /// ``value`` in words, made when asked (a scalar's are not made before something
    /// shows them). Setting it sets ``value`` to the words.
    public var text: String {
        get { value.text }
        set { value = EventValue(text: newValue) }
    }
}
