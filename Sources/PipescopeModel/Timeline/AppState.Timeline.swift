import DequeModule
import PipescopeGraph

extension AppState {
    /// What the timeline and the event log show, apart from the history itself.
    public struct Timeline: Sendable {
        /// Each stage's recent events for its timeline lane, newest last.
        public internal(set) var lanes: [NodeID: Deque<LaneMark>] = [:]
        /// Nanoseconds of time per timeline column (zoom with + and -).
        public internal(set) var scale: Int64 = 100_000_000
        /// The right edge of the timeline while live: the last tick's clock.
        public internal(set) var now: Int64 = 0
        /// The event log shows only the selected stage's events.
        public internal(set) var logFollowsSelection = false

        static let laneLength = 256

        /// Adds each event's mark to its stage's lane. A cancel is recorded on the stage that
        /// owns the subscription; like the graph, every stage sharing it shows the cancel.
        mutating func recordLanes(_ events: [StageEvent], liveGraph: Graph) {
            for e in events {
                let stages: [NodeID]
                switch e.kind {
                case .demand, .unknown: continue  // a returned demand is no mark of its own
                case .cancelled: stages = [e.node] + (liveGraph[e.node]?.sharers ?? [])
                case .subscribe, .subscription, .request, .value, .finished, .failed, .forward, .adopt, .feeds,
                     .owned, .ownerReleased, .contractBroken:
                    stages = [e.node]
                }
                for stage in stages {
                    lanes[stage, default: []].append(LaneMark(time: e.time, kind: e.kind))
                    if lanes[stage]!.count > Self.laneLength { lanes[stage]!.removeFirst() }
                }
            }
        }

        /// Forgets the lanes of stages the live graph no longer has.
        mutating func keepLanes(of liveGraph: Graph) {
            // Usually nothing goes: remove what did, rather than rebuild every lane.
            for id in lanes.keys.filter({ !liveGraph.contains($0) }) { lanes[id] = nil }
        }

        /// Zooms in (a positive factor divides the scale) or out (a negative one multiplies it).
        mutating func zoom(_ factor: Int) {
            let scaled = factor > 0 ? scale / Int64(factor) : scale * Int64(-factor)
            scale = Self.clampScale(scaled)
        }

        /// Zooms out until every kept lane mark fits the timeline's width (about 60 columns)
        /// ending at `end`.
        mutating func fit(endingAt end: Int64) {
            let oldest = lanes.values.compactMap { $0.first?.time }.min() ?? end
            let span = max(end - oldest, 1_000_000)
            scale = Self.clampScale(span / 60 + 1)
        }

        /// Between a millisecond and a minute a column.
        private static func clampScale(_ scale: Int64) -> Int64 {
            min(max(scale, 1_000_000), 60_000_000_000)
        }
    }
}

/// One event on a stage's timeline lane.
public struct LaneMark: Hashable, Sendable {
    public var time: Int64
    public var kind: EventKind
}
