import PipescopeGraph

// MARK: - Snapshots: where the recording starts, and gaps

extension TraceExporter {
    /// A snapshot: the graph when the recording started, or (later) the recorder catching
    /// up after it fell behind and skipped events.
    func load(_ snapshot: GraphSnapshot) throws {
        guard origin != nil else {
            // Drawn once the first event says when the recording starts.
            graph.load(snapshot)
            rebuildForwarders()
            return
        }
        try resynchronise(snapshot)
    }

    /// Sets trace time 0 and opens the slices of the stages live in the first snapshot
    /// (their slices start at 0; their args say when they really subscribed). Stages of
    /// the snapshot that had already ended are not drawn.
    func establishOrigin(_ time: Int64) throws {
        origin = time
        lastTime = max(lastTime, time)
        try writeLostCounter()
        for id in treeOrder() {
            guard let node = graph[id] else { continue }
            if node.status.isTerminal {
                summary.endedBeforeRecording += 1
            } else if open[id] == nil {
                open(node, at: node.createdNanos)
            }
        }
    }

    /// Trace time 0 for a recording with no event: its snapshot's newest moment.
    func fallbackOrigin() -> Int64 {
        graph.nodes.values.reduce(Int64(0)) { latest, node in
            max(latest, node.createdNanos, node.endedNanos ?? 0, node.lastValueNanos ?? 0)
        }
    }

    /// The recorder fell behind and the probe sent a snapshot in place of the events it
    /// skipped: slices of stages that ended in the gap end where the gap is known to end,
    /// and stages that appeared in it open there.
    private func resynchronise(_ snapshot: GraphSnapshot) throws {
        try writeWaves()
        let gapEnd = lastTime
        graph.load(snapshot)
        rebuildForwarders()
        if snapshot.skippedEvents > 0 {
            skipped += snapshot.skippedEvents
            try writeLostCounter()
            try emit(TraceEvent(.instant, name: "events skipped", category: "lost", pid: pid, ts: us(gapEnd),
                                scope: .process,
                                args: ["skipped": .int(Int64(snapshot.skippedEvents)),
                                       "why": "the recorder fell behind; the probe sent a snapshot in place of these events"]))
        }
        for id in open.keys.sorted() {
            if let node = graph[id] {
                if node.status.isTerminal {
                    try close(id, at: node.endedNanos ?? gapEnd, note: "it ended while events were skipped")
                }
            } else {
                try close(id, at: gapEnd, note: "its end was among the skipped events; the slice ends where the gap was noticed")
            }
        }
        for id in treeOrder() {
            guard let node = graph[id], !node.status.isTerminal, open[id] == nil, closedTid[id] == nil else { continue }
            open(node, at: node.createdNanos, notBefore: gapEnd)
        }
        try nameTracks(lanes.takeEnded())
    }

    /// Every stage, each after its downstream (roots in order, depth first).
    func treeOrder() -> [NodeID] {
        var order: [NodeID] = []
        var stack = Array(graph.roots.reversed())
        while let id = stack.popLast() {
            order.append(id)
            stack.append(contentsOf: (graph[id]?.children ?? []).reversed())
        }
        return order
    }

    private func rebuildForwarders() {
        forwarders = [:]
        for node in graph.nodes.values {
            if let target = node.forwardsTo { forwarders[target, default: []].append(node.id) }
        }
    }
}
