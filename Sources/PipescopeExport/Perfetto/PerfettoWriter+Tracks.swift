import PipescopeGraph

// MARK: - Tracks and life slices

extension PerfettoWriter {
    /// A stage's track, under its downstream's track or, for a root (or a stage whose
    /// downstream is not drawn), under its pipeline's track; named now, before any of its
    /// events, as Perfetto's import wants it (its own location is in the name when the
    /// probe sent it with the stage, and always in its life slice).
    func openStage(_ stage: StageOpening<Track>, graph: Graph) throws -> Track {
        try describeProcess()
        let node = stage.node
        var track = PerfettoTrack(uuid: PerfettoUUID.stage(node.id),
                                  name: TrackNames.stage(node, location: graph.location(of: node.id)))
        if let parent = node.parent, let downstream = stage.downstream {
            track.parent = downstream
            // After the demand counter (0), in the order the downstream's upstreams came:
            // counted here, as the graph forgets ended upstreams (a flatMap's inners) and
            // its children's positions start over.
            let rank = (childRanks[parent] ?? 0) + 1
            childRanks[parent] = rank
            track.rank = rank
        } else {
            let ordinal = stage.placement.pipeline
            if !pipelineTracks.contains(ordinal) {
                pipelineTracks.insert(ordinal)
                try sequence.describe(pipelineTrack(ordinal, name: nil))
            }
            track.parent = PerfettoUUID.pipeline(ordinal)
            track.rank = 0
        }
        track.explicitChildren = true
        try sequence.describe(track)
        return track.uuid
    }

    private func pipelineTrack(_ ordinal: Int, name: String?) -> PerfettoTrack {
        var track = PerfettoTrack(uuid: PerfettoUUID.pipeline(ordinal), parent: PerfettoUUID.pipelines, name: name)
        track.rank = ordinal
        track.explicitChildren = true
        return track
    }

    /// Names the tracks of pipelines that are over (or, at the end, of every pipeline),
    /// as the JSON export names its threads.
    func pipelinesEnded(_ pipelines: [LaneBook.Pipeline], graph: Graph) throws {
        for pipeline in pipelines {
            guard pipelineTracks.remove(pipeline.ordinal) != nil else { continue }
            let name = TrackNames.name(of: pipeline, root: graph[pipeline.root]?.info)
            try sequence.describe(pipelineTrack(pipeline.ordinal, name: name))
        }
    }

    /// Writes a stage's life slice, from its subscribe (no earlier than the recording) to
    /// its end, named by how it ended.
    func closeStage(_ closing: StageClosing<Track>, graph: Graph) throws {
        let id = closing.id
        let uuid = closing.stage.track
        // No earlier than the recording (as the JSON's slices): a stage live for hours
        // before it would stretch the timeline back to its subscribe, empty until the
        // first recorded event. Its slice says when it really subscribed.
        let start = closing.stage.from
        let end = max(closing.end, start)
        if !closing.liveAtEnd { try endDemand(of: id, at: end) }
        guard let node = graph[id] else {
            try emit(PerfettoEvent(.sliceBegin, track: uuid, time: start, name: "stage \(id)"))
            try emit(PerfettoEvent(.sliceEnd, track: uuid, time: end))
            return
        }
        let located = graph.location(of: id)
        var begin = PerfettoEvent(.sliceBegin, track: uuid, time: start,
                                  name: closing.liveAtEnd ? "live at end" : node.status.rawValue)
        begin.annotations = lifeAnnotations(node, owner: graph.owner(of: id), liveAtEnd: closing.liveAtEnd)
        if closing.stage.subscribed < closing.stage.from, let startNote = closing.stage.startNote {
            begin.annotations.append(("slice_start", .string(startNote)))
            begin.annotations.append(("subscribed_ns", .int(closing.stage.subscribed)))
        }
        if let valuesBefore = closing.stage.valuesBefore {
            begin.annotations.append(("values_before_recording", .int(Int64(valuesBefore))))
        }
        if let note = closing.note { begin.annotations.append(("note", .string(note))) }
        if let located {
            begin.location = located.location
            begin.annotations.append(("location", .string(located.location.short)))
        }
        try emit(begin)
        try emit(PerfettoEvent(.sliceEnd, track: uuid, time: end))
    }

    /// What a stage's slice says about it.
    private func lifeAnnotations(_ node: NodeSummary, owner: Owner?, liveAtEnd: Bool) -> [(String, PerfettoValue)] {
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
        if let owner { a.append(("owner", .string(owner.name))) }
        if node.afterEnd > 0 { a.append(("after_end", .int(Int64(node.afterEnd)))) }
        if !node.contractBroken.isEmpty { a.append(("contract_broken", .string(node.contractBroken.joined(separator: "; ")))) }
        return a
    }
}
