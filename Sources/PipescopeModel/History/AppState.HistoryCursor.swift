import PipescopeGraph

extension AppState {
    /// Every event kept, the cursor into them, and the graph on screen: the live graph
    /// when following live, the graph after ``position`` events when looking at the past.
    ///
    /// History is append-only: moving the cursor replaces only the graph shown.
    public struct HistoryCursor: Sendable {
        /// The graph on screen: the live one, or the one at the cursor. Not a copy of the
        /// live graph: a copy would make the next batch's fold copy every stage.
        public var graph: Graph { past ?? liveGraph }
        /// The program's graph now, whatever the cursor shows.
        public private(set) var liveGraph = Graph() { didSet { if past == nil { graphVersion &+= 1 } } }
        /// The graph at the cursor, while looking at the past.
        private var past: Graph? { didSet { graphVersion &+= 1 } }
        /// Every event with checkpoints, for moving back in time (evicted oldest first).
        public internal(set) var log = History()
        /// The position in `log` being shown (events applied), or nil when following live.
        public internal(set) var position: Int?
        /// Wall-clock time of the newest event seen (a recording's "now").
        public internal(set) var lastEventNanos: Int64 = 0
        /// When the live graph was last pruned.
        var lastPrune: Int64 = 0
        /// Changes whenever the graph on screen changes, so rows derived from it know they
        /// are stale without comparing graphs.
        private(set) var graphVersion = 0
        /// The live graph's stages that have ended (and not been pruned): all that pruning
        /// looks at.
        private var ended: Set<NodeID> = []
        /// The live graph's changes not yet taken by each reader (nil: the graph on screen
        /// changed in a way they do not say, and the reader must start over).
        private var warningsChanges: GraphChanges?
        private var tableChanges: GraphChanges?

        /// Who reads the graph's changes: each takes them at its own pace.
        enum ChangeReader: Sendable {
            case warnings, table
        }

        /// The changes to the graph on screen since `reader` last took them; nil when they
        /// are not known (a snapshot, the cursor moved, the past on screen): start over.
        mutating func takeChanges(for reader: ChangeReader) -> GraphChanges? {
            let fresh: GraphChanges? = past == nil ? GraphChanges() : nil
            switch reader {
            case .warnings:
                defer { warningsChanges = fresh }
                return fresh == nil ? nil : warningsChanges
            case .table:
                defer { tableChanges = fresh }
                return fresh == nil ? nil : tableChanges
            }
        }

        /// Hands the live graph's recorded changes to every reader.
        private mutating func noteChanges(_ new: GraphChanges) {
            guard !new.isEmpty else { return }
            for id in new.touched {
                if liveGraph[id]?.status.isTerminal == true { ended.insert(id) } else { ended.remove(id) }
            }
            ended.subtract(new.removed)
            warningsChanges?.formUnion(new)
            tableChanges?.formUnion(new)
        }

        private mutating func forgetChanges() {
            warningsChanges = nil
            tableChanges = nil
        }

        /// Takes the screen over from `other` (another run of the program shown in its
        /// place): what was derived from `other`'s graph (rows, lints) must start over, so
        /// the version moves past both and the changes are forgotten.
        mutating func takeOver(from other: HistoryCursor) {
            graphVersion = max(graphVersion, other.graphVersion) &+ 1
            forgetChanges()
        }

        /// Shows the graph as it was after `target` events; at the newest event, goes live.
        mutating func move(to target: Int) {
            let clamped = min(max(target, log.start), log.end)
            if clamped == log.end {
                goLive()
            } else {
                position = clamped
                past = log.graph(at: clamped)
                forgetChanges()
            }
        }

        /// Shows the graph after `target` events, even at the newest: an earlier run of
        /// the program has no live graph to follow.
        mutating func pin(at target: Int) {
            let clamped = min(max(target, log.start), log.end)
            position = clamped
            past = log.graph(at: clamped)
        }

        /// Starts over from a snapshot (attach, reconnect), or, after a gap (the probe
        /// skipped this inspector because it fell behind), continues from it keeping the
        /// history before the gap.
        mutating func load(_ snapshot: GraphSnapshot, keepingHistory: Bool) {
            var live = Graph()
            live.load(snapshot)
            live.recordChanges()
            forgetChanges()
            ended = Set(live.nodes.lazy.filter { $0.value.status.isTerminal }.map(\.key))
            if keepingHistory {
                log.resync(to: live, recent: snapshot.recent)
            } else {
                log.reset(to: live, recent: snapshot.recent)
                goLive()
            }
            liveGraph = live
        }

        /// Folds a batch into the live graph and keeps its events.
        mutating func append(_ batch: EventBatch) {
            var live = liveGraph
            liveGraph = Graph()  // `live` is now the only reference: the fold copies nothing
            live.recordChanges()
            log.append(batch, folding: &live)
            let changes = live.takeChanges()
            liveGraph = live
            noteChanges(changes)
        }

        /// Prunes ended stages from the live graph (the past keeps them), looking only at
        /// those that have ended. Returns whether any went.
        @discardableResult
        mutating func prune(now: Int64, retention: Retention) -> Bool {
            // Nothing ended, no owner released: nothing can go.
            guard !ended.isEmpty || liveGraph.owners.values.contains(where: { $0.releasedNanos != nil }) else { return false }
            liveGraph.recordChanges()
            let removed = liveGraph.prune(now: now, retention: retention, ended: ended)
            let changes = liveGraph.takeChanges()
            noteChanges(changes)
            return removed
        }

        /// Moves the cursor by `delta` events from where it is (live counts as the end).
        mutating func move(by delta: Int) {
            move(to: (position ?? log.end) + delta)
        }

        /// Follows live events again.
        mutating func goLive() {
            if past != nil { forgetChanges() }
            position = nil
            past = nil
        }

        /// The moment on screen, which everything shown is judged at (waits, lints, ages,
        /// rates, the timeline's right edge): the cursor's event's time; before the first
        /// event kept (`g`), the first kept event's (the graph on screen is the one just
        /// before it); live, `now`, never before the newest event.
        func end(now: Int64) -> Int64 {
            if let position {
                if let event = log.event(at: position) { return event.time }
                if let first = log.event(at: log.start + 1) { return first.time }
            }
            return max(now, lastEventNanos)
        }

        mutating func noteLastEvent(_ events: [StageEvent]) {
            if let last = events.last?.time, last > lastEventNanos { lastEventNanos = last }
        }
    }
}
