import PipescopeGraph
import PipescopeModel

// MARK: - Instants, arrows and counters

extension PerfettoWriter {
    /// A value: an instant named "value" with its text, its thread and its delivery's
    /// times when recorded; "value after end" once the stage ended. A stage mirroring
    /// another (type erasure) gets the same instant, without arrows.
    func value(_ event: StageEvent, on id: NodeID, track: Track, live: Bool, mirroredFrom source: NodeID?) throws {
        let mirrored = source != nil
        // The delivery's times (self_ns, total_ns): in the receiving operator's own code,
        // and with the stages it called.
        let instant = ValueInstant(track: track, time: event.time, live: live, text: event.text,
                                   mirroredFrom: source, thread: event.thread,
                                   selfNanos: event.selfNanos, totalNanos: event.totalNanos, event: event.id)
        flows.add(instant, id: mirrored ? 0 : event.id, causedBy: mirrored ? 0 : event.causedBy)
    }

    /// The event's number, the one the inspector's history line, `e` and the event log
    /// give it: an "event" annotation, none when unnumbered.
    static func number(_ event: StageEvent) -> [(String, PerfettoValue)] {
        event.id == 0 ? [] : [("event", .int(Int64(bitPattern: event.id)))]
    }

    /// A request (`request(_:)` on the subscription) or a demand returned from
    /// `receive(_:)`, with how much.
    func demand(_ event: StageEvent, track: Track, sharers: [NodeID]) throws {
        let instant = PerfettoEvent(.instant, track: track, time: event.time,
                                    name: event.kind == .request ? "request" : "demand",
                                    annotations: [("demand", .string(event.demand.description))] + Self.number(event))
        flows.add(instant, id: event.id, causedBy: event.causedBy)
    }

    func completion(_ event: StageEvent, on id: NodeID, track: Track, mirrored: Bool) throws {
        var annotations = Self.number(event)
        if event.kind == .failed { annotations.append(("error", .string(event.text))) }
        let instant = PerfettoEvent(.instant, track: track, time: event.time,
                                    name: event.kind == .failed ? "failed" : "finished", annotations: annotations)
        flows.add(instant, id: mirrored ? 0 : event.id, causedBy: mirrored ? 0 : event.causedBy)
    }

    func ownerReleased(_ event: StageEvent) throws {
        flows.add(PerfettoEvent(.instant, track: PerfettoUUID.process, time: event.time, name: "owner released",
                                annotations: [("owner", .string(event.text)), ("owner_id", .int(Int64(event.other)))]
                                    + Self.number(event)),
                  id: 0, causedBy: 0)
    }

    /// Samples the outstanding demand (requested minus delivered; -1 when unlimited) of
    /// each open stage whose counter it changes. A stage's counter track is described
    /// with its first sample; a new stage's counter starts at 0 unwritten, and ends at 0
    /// with its stage (``endDemand(of:at:)``).
    func outstandingChanged(_ ids: [NodeID], at time: Int64, graph: inout Graph) throws {
        for id in ids {
            let shown = demandShown[id]
            // Unlimited demand stays unlimited, whatever is requested or delivered.
            guard shown != -1 else { continue }
            try sampleDemand(of: id, shown: shown, at: time, graph: &graph)
        }
    }

    private func sampleDemand(of id: NodeID, shown: Int64?, at time: Int64, graph: inout Graph) throws {
        guard let value = graph.outstanding(of: id)?.wire else { return }
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

    /// A stage ended: its counter, if it shows demand, drops to 0 (a counter keeps its
    /// last value to the end of the trace).
    func endDemand(of id: NodeID, at time: Int64) throws {
        guard let shown = demandShown.removeValue(forKey: id), shown != 0 else { return }
        var sample = PerfettoEvent(.counter, track: PerfettoUUID.demand(id), time: time)
        sample.counter = 0
        try emit(sample)
    }

    // MARK: - Cancels: instants joined by arrows

    /// The origin's instant with an arrow starting per reached stage, and each reached
    /// stage's "cancelled" instant ending one.
    func cancelWave(_ drawing: CancelDrawing<Track>) throws {
        let wave = drawing.wave
        let origin = wave.origin
        var ids: [UInt64] = []
        if let track = origin.track {
            var instant = PerfettoEvent(.instant, track: track, time: origin.time, name: drawing.label,
                                        annotations: [("cause", .string(wave.cause.rawValue))])
            ids = drawing.reached.map { _ in flows.newFlow() }
            instant.flows = ids
            try emit(instant)
        }
        for (i, target) in drawing.reached.enumerated() {
            var instant = PerfettoEvent(.instant, track: target.track, time: target.point.time,
                                        name: "cancelled",
                                        annotations: [("cause", .string(wave.cause.rawValue)),
                                                      ("cancelled_by", .int(Int64(origin.id)))])
            if i < ids.count { instant.terminatingFlows = [ids[i]] }
            try emit(instant)
        }
    }

    // MARK: - Lints and lost events

    func lint(_ lint: Lint, track: Track, at time: Int64) throws {
        try emit(PerfettoEvent(.instant, track: track, time: time,
                               name: "lint: \(lint.kind.rawValue)", annotations: [("message", .string(lint.message))]))
    }

    /// Two counters of the process: dropped by the probe (its buffer was full) and
    /// skipped by the recorder (it fell behind).
    func lost(dropped: UInt64, skipped: UInt64, at time: Int64) throws {
        if !lostDescribed {
            lostDescribed = true
            try describeProcess()
            for (uuid, name) in [(PerfettoUUID.dropped, "events dropped by the probe"),
                                 (PerfettoUUID.skipped, "events skipped by the recorder")] {
                var track = PerfettoTrack(uuid: uuid, parent: PerfettoUUID.process, name: name)
                track.counterUnit = "events"
                try sequence.describe(track)
            }
        }
        for (uuid, count) in [(PerfettoUUID.dropped, dropped), (PerfettoUUID.skipped, skipped)] {
            var sample = PerfettoEvent(.counter, track: uuid, time: time)
            sample.counter = Int64(clamping: count)
            try emit(sample)
        }
    }

    func skipped(_ count: UInt64, at time: Int64) throws {
        try emit(PerfettoEvent(.instant, track: PerfettoUUID.process, time: time, name: "events skipped",
                               annotations: [("skipped", .int(Int64(count)))]))
    }
}
