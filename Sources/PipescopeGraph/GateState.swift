/// The probe's gate as an inspector sees it: whether the program's pipelines are paused,
/// and which threads wait at it.
public struct GateState: Hashable, Sendable {
    public var paused = false
    /// Events waiting at the gate, oldest (next to be released) first. Empty when open.
    public var pending: [PendingEvent] = []
    /// Why the gate opened by itself, once ("deadline", "inspector left"); empty otherwise.
    public var resumedBecause = ""
    /// When the gate closed for the pause under way (wall-clock nanoseconds); 0 when open
    /// or not said (probes before protocol version 5's trailer field 10).
    public var pausedSinceNanos: Int64 = 0
    /// The pause that ended since the previous batch, said once: time the program spent
    /// held by an inspector, which is no wait of its own (``PauseLog``).
    public var endedPause: PauseInterval?

    public init(paused: Bool = false, pending: [PendingEvent] = [], resumedBecause: String = "",
                pausedSinceNanos: Int64 = 0, endedPause: PauseInterval? = nil) {
        self.paused = paused
        self.pending = pending
        self.resumedBecause = resumedBecause
        self.pausedSinceNanos = pausedSinceNanos
        self.endedPause = endedPause
    }
}

/// A span of wall-clock time the gate was closed: from when it closed to when it opened.
public struct PauseInterval: Hashable, Sendable {
    public var fromNanos: Int64
    public var toNanos: Int64

    public init(fromNanos: Int64, toNanos: Int64) {
        self.fromNanos = fromNanos
        self.toNanos = toNanos
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
