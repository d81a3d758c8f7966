import DequeModule
import PipescopeGraph

extension AppState {
    /// What the timeline and the event log show, apart from the history itself.
    public struct Timeline: Sendable {
        /// Each stage's lane: its values, requests and held stretches (``Lane``), for as
        /// long as the history keeps its events.
        public internal(set) var lanes: [NodeID: Lane] = [:]
        /// Nanoseconds of time per timeline column (zoom with + and -).
        public internal(set) var scale: Int64 = 100_000_000
        /// The right edge of the timeline while live: the last tick's clock.
        public internal(set) var now: Int64 = 0
        /// Which events the event log lists, as `f` set it (``LogScope``).
        public internal(set) var logScope = LogScope.shown
        /// The time at the timeline's right edge while looking at the past: it stays put
        /// while the cursor moves inside the window, so the cursor's column moves, and
        /// scrolls when the cursor reaches an edge. nil while live (the edge is now).
        public internal(set) var windowEnd: Int64?
        /// The history's first kept position when the lanes last followed its eviction.
        private var keptFrom = 0
        /// The history's first position in memory when the lanes last followed its spill.
        private var storedFrom = 0

        /// Takes the way `other` is viewed (zoom, the log's filter, the clock), not its
        /// lanes: another run of the program shown with the same view.
        mutating func carryView(from other: Timeline) {
            scale = other.scale
            now = other.now
            logScope = other.logScope
            windowEnd = nil
        }

        /// Adds a batch's events (already folded into `liveGraph`) to their stages' lanes.
        /// Values and requests are marked where they came; a stage whose demand a batch
        /// touched is held from the batch's last event for it when it then has none
        /// outstanding (the graph counts demand; a batch is 25 ms, finer than a column at
        /// any zoom but the closest). A cancel ends the lane of every stage sharing the
        /// subscription, as the graph does.
        mutating func recordLanes(_ events: [StageEvent], liveGraph: Graph) {
            var touched: [NodeID: Int64] = [:]
            for e in events {
                switch e.kind {
                case .value:
                    lanes[e.node, default: Lane()].addValue(at: e.time)
                    touched[e.node] = e.time
                case .request:
                    lanes[e.node, default: Lane()].addRequest(at: e.time)
                    for id in [e.node] + (liveGraph[e.node]?.sharers ?? []) { touched[id] = e.time }
                case .demand, .subscription:
                    touched[e.node] = e.time
                case .finished, .failed:
                    lanes[e.node]?.end(at: e.time)
                    touched[e.node] = nil
                case .cancelled:
                    for id in [e.node] + (liveGraph[e.node]?.sharers ?? []) {
                        lanes[id]?.end(at: e.time)
                        touched[id] = nil
                    }
                case .subscribe, .forward, .adopt, .feeds, .owned, .ownerReleased, .contractBroken, .delivered, .unknown:
                    break  // the graph draws the life; these are not marks of their own
                }
            }
            for (id, time) in touched {
                guard let node = liveGraph[id], node.status == .active else { continue }
                lanes[id, default: Lane()].noteDemand(outstanding: node.outstanding != .none, at: time)
            }
        }

        /// Brings every live stage's held stretch in line with a snapshot of the graph
        /// (an attach, or a resynchronisation after events were skipped): a snapshot has
        /// no events, so without this a stage already waiting for demand when the
        /// inspector attaches would be drawn as having it until its next event, which for a
        /// stalled stage never comes. Held from its last progress (created, last value,
        /// last request: when the wait began, as ``Waits`` dates it).
        mutating func resyncDemand(with liveGraph: Graph) {
            for (id, node) in liveGraph.nodes where node.status == .active {
                let since = max(node.createdNanos, node.lastValueNanos ?? node.createdNanos,
                                node.recentRequests.last?.time ?? node.createdNanos)
                let outstanding = node.outstanding != .none
                // A stage with demand and no lane yet draws as having it: nothing to note.
                if outstanding, lanes[id] == nil { continue }
                lanes[id, default: Lane()].noteDemand(outstanding: outstanding, at: since)
            }
        }

        /// Forgets the lanes of stages the live graph no longer has.
        mutating func keepLanes(of liveGraph: Graph) {
            // Usually nothing goes: remove what did, rather than rebuild every lane.
            for id in lanes.keys.filter({ !liveGraph.contains($0) }) { lanes[id] = nil }
        }

        /// After the history evicted its oldest events, the lanes forget them too; after it
        /// spilled them to disk, the lanes' times go to disk too (``SpilledTimes``).
        mutating func follow(_ log: History) {
            if log.memoryStart != storedFrom, let spilled = log.spilled {
                storedFrom = log.memoryStart
                if let oldest = log.event(at: log.memoryStart + 1)?.time {
                    for i in lanes.indices { lanes.values[i].store(before: oldest, in: spilled.laneTimes) }
                }
            }
            guard log.start != keptFrom else { return }
            keptFrom = log.start
            guard let oldest = log.event(at: log.start + 1)?.time else { return }
            // In place, by index: at 30,000 stages a lookup by id for each lane would be a
            // good part of folding the batch that evicted.
            for i in lanes.indices where lanes.values[i].knowsOf(before: oldest) {
                lanes.values[i].drop(before: oldest)
            }
        }

        /// Zooms in (a positive factor divides the scale) or out (a negative one
        /// multiplies it). In the past the cursor's moment (`anchor`) keeps its column.
        mutating func zoom(_ factor: Int, anchor: Int64?) {
            let old = scale
            let scaled = factor > 0 ? scale / Int64(factor) : scale * Int64(-factor)
            scale = Self.clampScale(scaled)
            if let anchor, let end = windowEnd {
                windowEnd = anchor + (end - anchor) / old * scale
            }
        }

        /// Keeps the cursor's moment on screen: the window ends at it when the past is
        /// first shown, stays while the cursor moves inside it, and scrolls when the
        /// cursor passes an edge (`width` columns). Live (`moment` nil), the edge is now.
        mutating func keep(_ moment: Int64?, width: Int) {
            guard let moment else {
                windowEnd = nil
                return
            }
            let span = Int64(max(1, width)) * scale
            guard let end = windowEnd, moment <= end else {
                windowEnd = moment
                return
            }
            if moment <= end - span { windowEnd = moment + span - scale }
        }

        /// Zooms until everything kept since `oldest` fits the timeline's `width`
        /// columns (60 when no timeline is on screen), ending at `end`.
        mutating func fit(endingAt end: Int64, oldest: Int64?, width: Int) {
            let span = max(end - (oldest ?? end), 1_000_000)
            scale = Self.clampScale(span / Int64(width > 1 ? width - 1 : 60) + 1)
            windowEnd = nil  // the cursor's moment at the right edge again
        }

        /// Between a millisecond and a minute a column.
        private static func clampScale(_ scale: Int64) -> Int64 {
            min(max(scale, 1_000_000), 60_000_000_000)
        }
    }
}
