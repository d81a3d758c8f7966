import PipescopeGraph
import PipescopeModel

// MARK: - Instants, arrows and counters

extension PerfettoExporter {
    /// A value delivered to a stage: an instant named "value" with its text, its thread
    /// and its delivery's times when recorded; "value after end" once the stage ended. A stage mirroring another (type erasure) gets the
    /// same instant, without arrows.
    func markValue(_ event: StageEvent, on id: NodeID, mirrored: Bool) {
        guard drawn.contains(id) else { return }
        let live = open[id] != nil
        // The delivery's times (self_ns, total_ns): in the receiving operator's own code,
        // and with the stages it called.
        let instant = ValueInstant(track: PerfettoUUID.stage(id), time: event.time, live: live, text: event.text,
                                   mirroredFrom: mirrored ? event.node : nil, thread: event.thread,
                                   selfNanos: event.selfNanos, totalNanos: event.totalNanos)
        flows.add(instant, id: mirrored ? 0 : event.id, causedBy: mirrored ? 0 : event.causedBy)
        if live { summary.values += 1 }
    }

    /// A request (`request(_:)` on the subscription) or a demand returned from
    /// `receive(_:)`, with how much.
    func markDemand(_ event: StageEvent) {
        guard open[event.node] != nil else { return }
        let instant = PerfettoEvent(.instant, track: PerfettoUUID.stage(event.node), time: event.time,
                                    name: event.kind == .request ? "request" : "demand",
                                    annotations: [("demand", .string(event.demand.description))])
        flows.add(instant, id: event.id, causedBy: event.causedBy)
    }

    func markCompletion(_ event: StageEvent, on id: NodeID, mirrored: Bool) {
        var annotations: [(String, PerfettoValue)] = []
        if event.kind == .failed { annotations.append(("error", .string(event.text))) }
        let instant = PerfettoEvent(.instant, track: PerfettoUUID.stage(id), time: event.time,
                                    name: event.kind == .failed ? "failed" : "finished", annotations: annotations)
        flows.add(instant, id: mirrored ? 0 : event.id, causedBy: mirrored ? 0 : event.causedBy)
    }

    /// Samples the outstanding demand (requested minus delivered; -1 when unlimited) of
    /// each stage whose counter it changes. A stage's counter track is described with
    /// its first sample; a new stage's counter starts at 0 unwritten.
    func sampleDemand(of ids: [NodeID], at time: Int64) throws {
        for id in ids { try sampleDemand(of: id, at: time) }
    }

    func sampleDemand(of id: NodeID, at time: Int64) throws {
        guard drawn.contains(id), let value = graph.outstanding(of: id)?.wire else { return }
        let shown = demandShown[id]
        guard shown != value, shown != nil || value != 0 else { return }
        if shown == nil {
            var track = PerfettoTrack(uuid: PerfettoUUID.demand(id), parent: PerfettoUUID.stage(id),
                                      name: "#\(id) demand outstanding")
            track.description = "Values requested from stage #\(id) and not yet delivered; -1: unlimited"
            track.counterUnit = "values"
            track.rank = 0
            try sequence.describe(track)
        }
        demandShown[id] = value
        var sample = PerfettoEvent(.counter, track: PerfettoUUID.demand(id), time: time)
        sample.counter = value
        try emit(sample)
    }

    // MARK: - Cancels: instants joined by arrows

    /// Each changed wave: the origin's instant with an arrow starting per reached stage,
    /// and each reached stage's "cancelled" instant ending one.
    func writeWaves() throws {
        for (wave, continued) in waves.takeChanged() {
            let origin = wave.origin
            let reached = wave.pending.filter { drawn.contains($0.id) }
            var ids: [UInt64] = []
            if drawn.contains(origin.id) {
                let label = continued ? "cancel (continued)" : wave.originCancelled ? "cancelled" : "cancels upstream"
                var instant = PerfettoEvent(.instant, track: PerfettoUUID.stage(origin.id), time: origin.time, name: label,
                                            annotations: [("cause", .string(wave.cause.rawValue))])
                ids = reached.map { _ in flows.newFlow() }
                instant.flows = ids
                try emit(instant)
            }
            for (i, target) in reached.enumerated() {
                var instant = PerfettoEvent(.instant, track: PerfettoUUID.stage(target.id), time: target.time, name: "cancelled",
                                            annotations: [("cause", .string(wave.cause.rawValue)),
                                                          ("cancelled_by", .int(Int64(origin.id)))])
                if i < ids.count {
                    instant.terminatingFlows = [ids[i]]
                    summary.flows += 1
                }
                try emit(instant)
            }
        }
    }

    // MARK: - Lints and lost events

    /// Lints found since the last look, each once, as an instant on its stage's track.
    func writeLints() throws {
        guard let linter = options.linter else { return }
        for lint in linter.lints(graph, now: lastTime) {
            guard drawn.contains(lint.node),
                  reportedLints.insert(TraceExporter.LintKey(kind: lint.kind, node: lint.node)).inserted else { continue }
            let ended = open[lint.node] == nil ? graph[lint.node]?.endedNanos : nil
            try emit(PerfettoEvent(.instant, track: PerfettoUUID.stage(lint.node), time: min(lastTime, ended ?? lastTime),
                                   name: "lint: \(lint.kind.rawValue)", annotations: [("message", .string(lint.message))]))
            summary.lints += 1
        }
    }

    /// The events lost so far, as two counters of the process: dropped by the probe (its
    /// buffer was full) and skipped by the recorder (it fell behind).
    func writeLost() throws {
        if !lostDescribed {
            lostDescribed = true
            for (uuid, name) in [(PerfettoUUID.dropped, "events dropped by the probe"),
                                 (PerfettoUUID.skipped, "events skipped by the recorder")] {
                var track = PerfettoTrack(uuid: uuid, parent: PerfettoUUID.process, name: name)
                track.counterUnit = "events"
                try sequence.describe(track)
            }
        }
        for (uuid, count) in [(PerfettoUUID.dropped, dropped), (PerfettoUUID.skipped, skipped)] {
            var sample = PerfettoEvent(.counter, track: uuid, time: lastTime)
            sample.counter = Int64(clamping: count)
            try emit(sample)
        }
    }
}
