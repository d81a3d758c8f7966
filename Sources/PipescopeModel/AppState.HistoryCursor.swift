import PipescopeGraph

extension AppState {
    /// Every event kept, the cursor into them, and the graph on screen: the live graph
    /// when following live, the graph after `cursor` events when looking at the past.
    ///
    /// History is append-only: moving the cursor replaces only the graph shown.
    public struct HistoryCursor: Sendable {
        /// The graph on screen: the live one, or the one at the cursor.
        public internal(set) var graph = Graph() { didSet { graphVersion &+= 1 } }
        /// The program's graph now, whatever the cursor shows.
        public internal(set) var liveGraph = Graph()
        /// Every event with checkpoints, for moving back in time (evicted oldest first, a
        /// checkpoint span at a time).
        public internal(set) var log = History()
        /// Position in `log` being shown (events applied), or nil when following live.
        public internal(set) var cursor: Int?
        /// Wall-clock time of the newest event seen (a recording's "now").
        public internal(set) var lastEventNanos: Int64 = 0
        /// When the live graph was last pruned.
        var lastPrune: Int64 = 0
        /// Changes whenever `graph` is replaced, so rows derived from it know they are stale
        /// without comparing graphs.
        private(set) var graphVersion = 0

        /// Shows the graph as it was after `position` events; at the newest event, goes live.
        mutating func move(to position: Int) {
            let clamped = min(max(position, log.start), log.end)
            if clamped == log.end {
                goLive()
            } else {
                cursor = clamped
                graph = log.graph(at: clamped)
            }
        }

        /// Moves the cursor by `delta` events from where it is (live counts as the end).
        mutating func move(by delta: Int) {
            move(to: (cursor ?? log.end) + delta)
        }

        /// Follows live events again.
        mutating func goLive() {
            cursor = nil
            graph = liveGraph
        }

        /// Shows the live graph again after it changed, unless looking at the past.
        mutating func showLiveIfFollowing() {
            if cursor == nil { graph = liveGraph }
        }

        /// The time at the right edge of the timeline: the cursor's event, or `now`.
        func end(now: Int64) -> Int64 {
            if let cursor, let event = log.event(at: cursor) { return event.time }
            return max(now, lastEventNanos)
        }

        mutating func noteLastEvent(_ events: [StageEvent]) {
            if let last = events.last?.time, last > lastEventNanos { lastEventNanos = last }
        }
    }
}
