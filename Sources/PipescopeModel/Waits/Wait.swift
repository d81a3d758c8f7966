import PipescopeGraph

/// What a waiting stage waits on.
public enum WaitReason: String, Sendable, CaseIterable {
    /// Demand is outstanding and nothing has arrived: its upstream sends nothing.
    case upstream
    /// Its subscriber has no outstanding demand: nothing may be delivered.
    case demand
    /// It was subscribed to, and its upstream never sent a subscription.
    case subscription
}

/// The verdict on one waiting stage or pipeline: why it waits, since when, and which
/// stage holds the wait. A stage or pipeline that flows, or has ended, has no `Wait`.
///
/// ```swift
/// let waits = Waits(graph, now: now, after: 2)
/// let wait = waits.pipeline(root)!     // Map ← Future, the Future never fulfilled
/// wait.reason                          // .upstream
/// wait.at                              // the Future's stage
/// wait.seconds(at: now)                // 41.2
/// ```
public struct Wait: Hashable, Sendable {
    public var reason: WaitReason
    /// The stage the wait is attributed to: for ``WaitReason/upstream`` and
    /// ``WaitReason/subscription`` the stage furthest upstream that holds it; for
    /// ``WaitReason/demand`` the stage whose subscriber holds it back (the waiting
    /// stage's parent, whose operator is that subscriber; a root itself, for its sink).
    public var at: NodeID
    /// The last progress (a value, the request that opened the demand, the stage's
    /// making): the wait began then.
    public var sinceNanos: Int64
    /// For ``WaitReason/demand``: the subscriber's last request (nil: it never asked).
    public var lastRequest: Demand?
    /// When the program was paused by an inspector (``Graph/pauses``): the wait leaves
    /// that time out.
    public var pauses = PauseLog()

    public init(reason: WaitReason, at: NodeID, sinceNanos: Int64, lastRequest: Demand? = nil) {
        self.reason = reason
        self.at = at
        self.sinceNanos = sinceNanos
        self.lastRequest = lastRequest
    }

    /// How long it has waited at `now`, in nanoseconds (never negative), the time the
    /// program was paused by an inspector left out.
    public func nanos(at now: Int64) -> Int64 {
        max(0, now - sinceNanos - pauses.overlap(from: sinceNanos, to: now))
    }

    /// How long it has waited at `now`, in seconds.
    public func seconds(at now: Int64) -> Double { Double(nanos(at: now)) / 1e9 }
}

extension Wait {
    /// The line to change about this wait (``Graph/lineToChange(_:ownCode:)`` of the stage
    /// it is attributed to): for a source that does not send or never sends a
    /// subscription, its own code or what built it (a `Future` made in `API.search(_:)`);
    /// for a subscriber that asks for nothing more, where it was subscribed.
    public func lineToChange(in graph: Graph) -> SourceLocation? {
        graph.lineToChange(at, ownCode: reason != .demand)
    }
}
