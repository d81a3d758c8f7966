/// One thing that happened to one stage: what the tap records, the wire carries, the
/// history keeps and the graph folds.
///
/// ```swift
/// graph.apply(StageEvent(.value, node: 3, time: now, text: "42"))
/// graph.apply(StageEvent(.request, node: 3, time: now, demand: .unlimited))
/// graph.apply(StageEvent(.cancelled, node: 3, time: now, cause: .inspector))
/// ```
public struct StageEvent: Hashable, Sendable {
    public var kind: EventKind
    public var node: NodeID
    /// Wall clock, nanoseconds since 1970.
    public var time: Int64
    /// Request and demand events: how much.
    public var demand: Demand
    /// The other stage (or owner) of the kinds that link two: subscription, forward,
    /// adopt, feeds, owned, owner released. 0 when none.
    public var other: NodeID
    /// Who cancelled, for a cancel.
    public var cause: CancelCause?
    /// A failure's text, a captured value's description, an owner's name, a broken
    /// contract. Empty when none (a value that was not described).
    public var text: String

    public init(_ kind: EventKind, node: NodeID, time: Int64, demand: Demand = .none, other: NodeID = 0,
                cause: CancelCause? = nil, text: String = "") {
        self.kind = kind
        self.node = node
        self.time = time
        self.demand = demand
        self.other = other
        self.cause = cause
        self.text = text
    }
}
