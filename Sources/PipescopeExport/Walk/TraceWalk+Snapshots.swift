import PipescopeGraph

// MARK: - Snapshots: where the recording starts, and gaps

extension TraceWalk {
    /// A snapshot: the graph when the recording started, or (later) the recorder catching
    /// up after it fell behind and skipped events.
    func load(_ snapshot: GraphSnapshot) throws {
        guard origin != nil else {
            // Drawn once the first event says when the recording starts.
            graph.load(snapshot)
            return
        }
        try resynchronise(snapshot)
    }

    /// Sets trace time 0 and opens the lives of the stages live in the first snapshot
    /// (shown from 0; they say when they really subscribed). Stages of the snapshot that
    /// had already ended are not drawn.
    func establishOrigin(_ time: Int64) throws {
        origin = time
        lastTime = max(lastTime, time)
        try writer.recordingStarts(at: time)
        try writer.lost(dropped: dropped, skipped: skipped, at: lastTime)
        for id in graph.treeOrder() {
            guard let node = graph[id] else { continue }
            if node.status.isTerminal {
                summary.endedBeforeRecording += 1
            } else if open[id] == nil {
                try open(node, at: node.createdNanos)
                try writer.outstandingChanged([id], at: time, graph: &graph)
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
    /// skipped: lives of stages that ended in the gap end where the gap is known to end,
    /// and stages that appeared in it open there.
    private func resynchronise(_ snapshot: GraphSnapshot) throws {
        try writeWaves()
        let gapEnd = lastTime
        graph.load(snapshot)
        if snapshot.skippedEvents > 0 {
            skipped += snapshot.skippedEvents
            try writer.lost(dropped: dropped, skipped: skipped, at: lastTime)
            try writer.skipped(snapshot.skippedEvents, at: gapEnd)
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
        for id in graph.treeOrder() {
            guard let node = graph[id], !node.status.isTerminal, open[id] == nil, closed[id] == nil else { continue }
            try open(node, at: node.createdNanos, notBefore: gapEnd)
        }
        try namePipelines(lanes.takeEnded())
    }
}
