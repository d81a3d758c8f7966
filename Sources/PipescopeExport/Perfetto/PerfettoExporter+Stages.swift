import PipescopeGraph

// MARK: - Tracks and life slices

extension PerfettoExporter {
    /// The process track, once: its pid and name.
    func describeProcess() throws {
        guard !processDescribed else { return }
        processDescribed = true
        var track = PerfettoTrack(uuid: PerfettoUUID.process)
        track.process = (pid, processName)
        try sequence.describe(track)
    }

    /// A stage subscribed (or was live when the recording started): its track, under its
    /// downstream's track or, for a root (or a stage whose downstream is not drawn), under
    /// a new pipeline's track. The track is named when the stage ends, when its location
    /// is known (it can follow the stage in a later batch).
    func openStage(_ node: NodeSummary, at start: Int64) throws {
        try describeProcess()
        let (placement, _) = lanes.place(node.id, parent: node.parent, start: start,
                                         operatorName: node.operatorName, subscriber: node.subscriber)
        let track = try stageTrack(node, pipeline: placement.pipeline)
        try sequence.describe(track)
        drawn.insert(node.id)
        open[node.id] = OpenStage(start: start, track: track)
    }

    /// A stage's track descriptor: under its downstream's track when that is drawn, else
    /// under its pipeline's (described here the first time).
    private func stageTrack(_ node: NodeSummary, pipeline: Int) throws -> PerfettoTrack {
        var track = PerfettoTrack(uuid: PerfettoUUID.stage(node.id))
        if let parent = node.parent, drawn.contains(parent) {
            track.parent = PerfettoUUID.stage(parent)
            // After the demand counter (0), in the order the downstream's upstreams came.
            track.rank = 1 + (graph[parent]?.children.firstIndex(of: node.id) ?? 0)
        } else {
            let ordinal = pipeline
            if !pipelineTracks.contains(ordinal) {
                pipelineTracks.insert(ordinal)
                try sequence.describe(pipelineTrack(ordinal, name: nil))
            }
            track.parent = PerfettoUUID.pipeline(ordinal)
            track.rank = 0
        }
        track.explicitChildren = true
        return track
    }

    private func pipelineTrack(_ ordinal: Int, name: String?) -> PerfettoTrack {
        var track = PerfettoTrack(uuid: PerfettoUUID.pipeline(ordinal), parent: PerfettoUUID.process, name: name)
        track.rank = ordinal
        track.explicitChildren = true
        return track
    }

    /// Names the tracks of pipelines that are over (or, at the end, of every pipeline),
    /// as the JSON export names its threads.
    func namePipelines(_ pipelines: [LaneBook.Pipeline]) throws {
        for pipeline in pipelines {
            summary.pipelines += 1
            guard pipelineTracks.remove(pipeline.ordinal) != nil else { continue }
            let name = TrackNames.name(of: pipeline, root: graph[pipeline.root]?.info)
            try sequence.describe(pipelineTrack(pipeline.ordinal, name: name))
        }
    }

    /// Closes the slice of a stage that the graph says has ended.
    func closeIfEnded(_ id: NodeID, fallback: Int64) throws {
        guard open[id] != nil, let node = graph[id], node.status.isTerminal else { return }
        try close(id, at: node.endedNanos ?? fallback)
    }

    /// Writes a stage's life slice, from its subscribe to `end`, named by how it ended,
    /// and names its track.
    func close(_ id: NodeID, at end: Int64, liveAtEnd: Bool = false, note: String? = nil) throws {
        guard let stage = open.removeValue(forKey: id) else { return }
        _ = lanes.end(id, at: end)
        guard let node = graph[id] else {
            try emit(PerfettoEvent(.sliceBegin, track: PerfettoUUID.stage(id), time: stage.start, name: "stage \(id)"))
            try emit(PerfettoEvent(.sliceEnd, track: PerfettoUUID.stage(id), time: max(end, stage.start)))
            summary.stages += 1
            return
        }
        var track = stage.track
        track.name = TrackNames.stage(node, location: graph.location(of: id))
        try sequence.describe(track)
        var begin = PerfettoEvent(.sliceBegin, track: PerfettoUUID.stage(id), time: stage.start,
                                  name: liveAtEnd ? "live at end" : node.status.rawValue)
        begin.annotations = lifeAnnotations(node, liveAtEnd: liveAtEnd)
        if let note { begin.annotations.append(("note", .string(note))) }
        if let located = graph.location(of: id) {
            begin.location = located.location
            begin.annotations.append(("location", .string(located.location.short)))
        }
        try emit(begin)
        try emit(PerfettoEvent(.sliceEnd, track: PerfettoUUID.stage(id), time: max(end, stage.start)))
        summary.stages += 1
    }

    /// What a stage's slice says about it.
    private func lifeAnnotations(_ node: NodeSummary, liveAtEnd: Bool) -> [(String, PerfettoValue)] {
        var a: [(String, PerfettoValue)] = [
            ("stage", .int(Int64(node.id))),
            ("status", .string(node.status.rawValue)),
            ("operator", .string(node.operatorName)),
            ("type", .string(node.publisherType)),
            ("subscriber", .string(node.subscriber)),
            ("thread", .string(node.thread)),
            ("values", .int(Int64(node.values))),
            ("demand", .string(node.requested.description)),
        ]
        if liveAtEnd { a.append(("live_at_end", .bool(true))) }
        if let cause = node.cause { a.append(("cause", .string(cause.rawValue))) }
        if let error = node.error { a.append(("error", .string(error))) }
        if let parent = node.parent { a.append(("downstream", .int(Int64(parent)))) }
        if let owner = node.ownerID.flatMap({ graph.owners[$0] }) { a.append(("owner", .string(owner.name))) }
        if node.afterEnd > 0 { a.append(("after_end", .int(Int64(node.afterEnd)))) }
        if !node.contractBroken.isEmpty { a.append(("contract_broken", .string(node.contractBroken.joined(separator: "; ")))) }
        return a
    }

    // MARK: - Snapshots

    /// The graph when the recording started, or the recorder catching up after it fell
    /// behind and skipped events.
    func load(_ snapshot: GraphSnapshot) throws {
        guard origin != nil else {
            graph.load(snapshot)
            rebuildForwarders()
            return
        }
        try writeWaves()
        let gapEnd = lastTime
        graph.load(snapshot)
        rebuildForwarders()
        if snapshot.skippedEvents > 0 {
            skipped += snapshot.skippedEvents
            try writeLost()
            try emit(PerfettoEvent(.instant, track: PerfettoUUID.process, time: gapEnd, name: "events skipped",
                                   annotations: [("skipped", .int(Int64(snapshot.skippedEvents)))]))
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
            guard let node = graph[id], !node.status.isTerminal, open[id] == nil, !drawn.contains(id) else { continue }
            try openStage(node, at: max(node.createdNanos, gapEnd))
        }
        try namePipelines(lanes.takeEnded())
    }

    /// Sets the recording's start and opens the slices of the stages live in the first
    /// snapshot, at their own subscribe times. Stages that had ended are not drawn.
    func establishOrigin(_ time: Int64) throws {
        origin = time
        lastTime = max(lastTime, time)
        try describeProcess()
        try writeLost()
        for id in treeOrder() {
            guard let node = graph[id] else { continue }
            if node.status.isTerminal {
                summary.endedBeforeRecording += 1
            } else if open[id] == nil {
                try openStage(node, at: node.createdNanos)
                try sampleDemand(of: [id], at: time)
            }
        }
    }

    /// The recording's start when it has no event: its snapshot's newest moment.
    func fallbackOrigin() -> Int64 {
        graph.nodes.values.reduce(Int64(0)) { latest, node in
            max(latest, node.createdNanos, node.endedNanos ?? 0, node.lastValueNanos ?? 0)
        }
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
