import PipescopeGraph

/// Events per pipeline per second, for the last minute: what the pipelines table's rate
/// and sparkline read.
///
/// A pipeline is a root stage and everything upstream of it. Each event is counted once,
/// for the pipeline its stage is in now (the root found by following `parent`, cached
/// per stage). A forwarder's mirrored copy of an event is not an event: the event counts
/// once, for the stage it was sent for. Adopting a root under another stage (`adopt`) or
/// moving an upstream under a subject's subscriber (`feeds`) changes which pipeline
/// stages are in, so such a batch empties the cache; so does pruning.
///
/// ```swift
/// var activity = PipelineActivity()
/// activity.record(batch.events, in: liveGraph)
/// activity.rate(of: 1, at: now)          // events per second over the last 3 seconds
/// activity.counts(of: 1, at: now)        // the last 60 seconds, oldest first
/// ```
public struct PipelineActivity: Sendable {
    /// How many seconds are kept per pipeline (the sparkline's span).
    public static let seconds = 60
    /// The rate is the mean over this many whole seconds before now.
    public static let rateWindow = 3

    struct Buckets: Sendable {
        /// Events in second `s` at `counts[s % seconds]`, for the `seconds` up to `newest`.
        var counts = [UInt32](repeating: 0, count: PipelineActivity.seconds)
        var newest: Int64 = .min
        var lastEventNanos: Int64 = 0

        mutating func add(second: Int64, nanos: Int64) {
            let n = Int64(PipelineActivity.seconds)
            if newest == .min {
                newest = second
            } else if second > newest {
                var s = newest + 1
                while s <= second && s <= newest + n {
                    counts[Int(s % n)] = 0
                    s += 1
                }
                newest = second
            } else if second <= newest - n {
                return
            }
            counts[Int(second % n)] &+= 1
            if nanos > lastEventNanos { lastEventNanos = nanos }
        }

        func count(at second: Int64) -> UInt32 {
            let n = Int64(PipelineActivity.seconds)
            guard newest != .min, second <= newest, second > newest - n, second >= 0 else { return 0 }
            return counts[Int(second % n)]
        }
    }

    private var buckets: [NodeID: Buckets] = [:]
    /// Each stage's root, as last found.
    private var rootOf: [NodeID: NodeID] = [:]
    /// Changes whenever a count does, so rows derived from it know they are stale.
    public private(set) var version = 0

    public init() {}

    /// Whether an event of this kind can move stages to another pipeline (so the roots
    /// remembered for stages must be found again).
    static func regroups(_ kind: EventKind) -> Bool {
        switch kind {
        case .adopt, .feeds: return true
        case .unknown, .subscribe, .subscription, .request, .value, .demand, .finished, .failed, .cancelled,
             .forward, .owned, .ownerReleased, .contractBroken, .delivered:
            return false
        }
    }

    /// The counts as they were right after the event at `position` of `history`: its
    /// events of the last ``seconds`` seconds (and one) up to it, counted for the
    /// pipelines of `graph`, the graph at that position. A live count remembers a pipeline's last event however
    /// long ago; this one, only from the events it reads (at most the history's kept).
    ///
    /// ```swift
    /// let then = PipelineActivity(upTo: 2_494, of: state.cursor.log, graph: state.cursor.graph)
    /// then.rate(of: 1, at: moment)
    /// ```
    public init(upTo position: Int, of history: History, graph: Graph) {
        guard let moment = history.event(at: position)?.time else { return }
        let from = history.position(atOrAfter: moment - Int64(Self.seconds + 1) * 1_000_000_000)
        let events = history.events(endingAt: position, count: max(1, position - from + 1))
        record(events.map(\.event), in: graph)
    }

    /// Counts `events` (already folded into `graph`) for their pipelines.
    mutating func record(_ events: [StageEvent], in graph: Graph) {
        guard !events.isEmpty else { return }
        if events.contains(where: { Self.regroups($0.kind) }) { rootOf = [:] }
        for event in events {
            guard let root = root(of: event.node, in: graph) else { continue }
            let second = event.time / 1_000_000_000
            buckets[root, default: Buckets()].add(second: second, nanos: event.time)
        }
        version &+= 1
    }

    /// The root of the pipeline `id` is in, or nil for a stage not in `graph`.
    mutating func root(of id: NodeID, in graph: Graph) -> NodeID? {
        if let hit = rootOf[id], graph[hit]?.parent == nil { return hit }
        var path: [NodeID] = []
        var current = id
        for _ in 0...graph.nodes.count {
            guard let node = graph[current] else { return nil }
            path.append(current)
            guard let parent = node.parent, parent != current else { break }
            if let hit = rootOf[parent], graph[hit]?.parent == nil {
                current = hit
                break
            }
            current = parent
        }
        for stage in path { rootOf[stage] = current }
        return current
    }

    /// Forgets the pipelines no longer in `graph` and the cached roots (after pruning or
    /// a snapshot).
    mutating func keep(_ graph: Graph) {
        rootOf = [:]
        buckets = buckets.filter { graph[$0.key] != nil }
        version &+= 1
    }

    /// Events per second in pipeline `root` over the ``rateWindow`` whole seconds before `now`.
    public func rate(of root: NodeID, at now: Int64) -> Double {
        guard let b = buckets[root] else { return 0 }
        let second = now / 1_000_000_000
        var total: UInt32 = 0
        for s in (second - Int64(Self.rateWindow))..<second { total &+= b.count(at: s) }
        return Double(total) / Double(Self.rateWindow)
    }

    /// Events per second in pipeline `root` for the ``seconds`` whole seconds before
    /// `now`, oldest first.
    public func counts(of root: NodeID, at now: Int64) -> [UInt32] {
        let second = now / 1_000_000_000
        guard let b = buckets[root] else { return [UInt32](repeating: 0, count: Self.seconds) }
        return ((second - Int64(Self.seconds))..<second).map { b.count(at: $0) }
    }

    /// When the newest event counted for `root` happened (0: none seen).
    public func lastEventNanos(of root: NodeID) -> Int64 { buckets[root]?.lastEventNanos ?? 0 }
}
