/// The probe's gate as an inspector sees it: whether the program's pipelines are paused,
/// and which threads wait at it.
public struct GateState: Hashable, Sendable {
    public var paused = false
    /// Events waiting at the gate, oldest (next to be released) first. Empty when open.
    public var pending: [PendingEvent] = []
    /// Why the gate opened by itself, once ("deadline", "inspector left"); empty otherwise.
    public var resumedBecause = ""

    public init(paused: Bool = false, pending: [PendingEvent] = [], resumedBecause: String = "") {
        self.paused = paused
        self.pending = pending
        self.resumedBecause = resumedBecause
    }
}

/// A thread stopped at the gate, about to deliver an event to a stage.
public struct PendingEvent: Hashable, Sendable {
    /// Release order: the oldest has the smallest.
    public var ticket: UInt64
    public var node: NodeID
    /// Value, finished or failed.
    public var kind: EventKind
    public var thread: String
    /// When it started waiting, nanoseconds since 1970.
    public var sinceNanos: Int64

    public init(ticket: UInt64, node: NodeID, kind: EventKind, thread: String, sinceNanos: Int64) {
        self.ticket = ticket
        self.node = node
        self.kind = kind
        self.thread = thread
        self.sinceNanos = sinceNanos
    }
}
