import PipescopeGraph
import PipescopeModel

// MARK: - Instants, arrows, counters and names

extension ChromeJSONWriter {
    /// A value: an instant named "value" with its text, when it was captured; "value after
    /// end" once the stage ended.
    func value(_ event: StageEvent, on id: NodeID, track: Int, live: Bool, mirroredFrom source: NodeID?) throws {
        var args: TraceArgs = ["stage": .int(Int64(id))]
        Self.number(event, into: &args)
        if !event.text.isEmpty { args["value"] = .string(event.text) }
        if let source { args["mirrored_from"] = .int(Int64(source)) }
        try emit(TraceEvent(.instant, name: live ? "value" : "value after end", category: "value", pid: pid, tid: track,
                            ts: us(event.time), scope: .thread, args: args))
    }

    /// The event's number, the one the inspector's history line, `e` and the event log
    /// give it, as the "event" arg (none when unnumbered).
    static func number(_ event: StageEvent, into args: inout TraceArgs) {
        if event.id != 0 { args["event"] = .int(Int64(bitPattern: event.id)) }
    }

    /// A request (`request(_:)` on the subscription) or a demand returned from
    /// `receive(_:)`.
    func demand(_ event: StageEvent, track: Int, sharers: [NodeID]) throws {
        var args: TraceArgs = ["stage": .int(Int64(event.node)), "demand": .string(event.demand.description)]
        Self.number(event, into: &args)
        if !sharers.isEmpty { args["shared_with"] = .string(sharers.map { "#\($0)" }.joined(separator: " ")) }
        try emit(TraceEvent(.instant, name: event.kind == .request ? "request" : "demand", category: "demand",
                            pid: pid, tid: track, ts: us(event.time), scope: .thread, args: args))
    }

    /// The demand is in each request's and each slice's args: no counter.
    func outstandingChanged(_ ids: [NodeID], at time: Int64, graph: inout Graph) throws {}

    func completion(_ event: StageEvent, on id: NodeID, track: Int, mirrored: Bool) throws {
        var args: TraceArgs = ["stage": .int(Int64(id))]
        Self.number(event, into: &args)
        if event.kind == .failed { args["error"] = .string(event.text) }
        try emit(TraceEvent(.instant, name: event.kind == .failed ? "failed" : "finished", category: "completion",
                            pid: pid, tid: track, ts: us(event.time), scope: .thread, args: args))
    }

    func ownerReleased(_ event: StageEvent) throws {
        var args: TraceArgs = ["owner": .string(event.text), "owner_id": .int(Int64(event.other))]
        Self.number(event, into: &args)
        try emit(TraceEvent(.instant, name: "owner released", category: "owner", pid: pid, ts: us(event.time),
                            scope: .process, args: args))
    }

    // MARK: - Cancels: instants joined by arrows

    /// A wave as one run: the origin's instant and a flow start per reached stage, then
    /// each reached stage's instant and its flow end. Flow events bind to the slice
    /// enclosing them on their track, which at that timestamp is the instant just before
    /// them, so each arrow joins the two instants and nothing else.
    func cancelWave(_ drawing: CancelDrawing<Int>) throws {
        let wave = drawing.wave
        let origin = wave.origin
        let name = wave.cause == .inspector ? "inspector cancel" : "cancel"
        var flows: [UInt64] = []
        if let tid = origin.track {
            var args: TraceArgs = ["stage": .int(Int64(origin.id)), "cause": .string(wave.cause.rawValue)]
            if drawing.continued { args["reaches"] = .string(wave.pending.map { "#\($0.id)" }.joined(separator: " ")) }
            try emit(TraceEvent(.instant, name: drawing.label, category: "cancel", pid: pid, tid: tid, ts: us(origin.time),
                                scope: .thread, args: args))
            for _ in drawing.reached {
                let id = nextFlowID()
                flows.append(id)
                try emit(TraceEvent(.flowStart, name: name, category: "cancel", pid: pid, tid: tid, ts: us(origin.time), id: id))
            }
        }
        var next = flows.makeIterator()
        for (target, tid) in drawing.reached {
            try emit(TraceEvent(.instant, name: "cancelled", category: "cancel", pid: pid, tid: tid, ts: us(target.time),
                                scope: .thread, args: ["stage": .int(Int64(target.id)), "cause": .string(wave.cause.rawValue),
                                                       "cancelled_by": .int(Int64(origin.id))]))
            if let id = next.next() {
                try emit(TraceEvent(.flowEnd, name: name, category: "cancel", pid: pid, tid: tid, ts: us(target.time),
                                    id: id, bindsEnclosing: true))
            }
        }
    }

    // MARK: - Lints, counters and names

    func lint(_ lint: Lint, track: Int, at time: Int64) throws {
        try emit(TraceEvent(.instant, name: "lint: \(lint.kind.rawValue)", category: "lint", pid: pid, tid: track,
                            ts: us(time), scope: .thread,
                            args: ["stage": .int(Int64(lint.node)), "message": .string(lint.message)]))
    }

    /// One counter with two series: dropped by the probe (its buffer was full) and
    /// skipped by the recorder (it fell behind and resynchronised from a snapshot).
    func lost(dropped: UInt64, skipped: UInt64, at time: Int64) throws {
        try emit(TraceEvent(.counter, name: "events lost", category: "lost", pid: pid, ts: us(time),
                            args: ["dropped": .int(Int64(dropped)), "skipped": .int(Int64(skipped))]))
    }

    func skipped(_ count: UInt64, at time: Int64) throws {
        try emit(TraceEvent(.instant, name: "events skipped", category: "lost", pid: pid, ts: us(time),
                            scope: .process,
                            args: ["skipped": .int(Int64(count)),
                                   "why": "the recorder fell behind; the probe sent a snapshot in place of these events"]))
    }

    /// Names each lane's thread and sorts the threads by their ids.
    func pipelinesEnded(_ pipelines: [LaneBook.Pipeline], graph: Graph) throws {
        for pipeline in pipelines {
            let root = graph[pipeline.root]?.info
            for lane in 0..<pipeline.laneCount {
                let tid = LaneBook.tid(pipeline: pipeline.ordinal, lane: lane)
                try emit(TraceEvent(.metadata, name: "thread_name", pid: pid, tid: tid,
                                    args: ["name": .string(TrackNames.name(of: pipeline, root: root, lane: lane))]))
                try emit(TraceEvent(.metadata, name: "thread_sort_index", pid: pid, tid: tid,
                                    args: ["sort_index": .int(Int64(tid))]))
            }
        }
    }

    func nameProcess() throws {
        guard !processNamed else { return }
        processNamed = true
        try emit(TraceEvent(.metadata, name: "process_name", pid: pid, args: ["name": .string(processName)]))
        try emit(TraceEvent(.metadata, name: "process_labels", pid: pid, args: ["labels": "Pipescope recording"]))
    }
}
