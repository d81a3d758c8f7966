import PipescopeGraph
import PipescopeModel

// MARK: - Instants, arrows, counters and names

extension TraceExporter {
    /// A value delivered to a stage: an instant named "value" with its text, when it was
    /// captured. A value after the stage ended is "value after end".
    func markValue(_ event: StageEvent, on id: NodeID, mirroredFrom source: NodeID?) throws {
        let live = open[id] != nil
        guard let tid = tid(of: id) else { return }
        var args: TraceArgs = ["stage": .int(Int64(id))]
        if !event.text.isEmpty { args["value"] = .string(event.text) }
        if let source { args["mirrored_from"] = .int(Int64(source)) }
        try emit(TraceEvent(.instant, name: live ? "value" : "value after end", category: "value", pid: pid, tid: tid,
                            ts: us(event.time), scope: .thread, args: args))
        if live { summary.values += 1 }
    }

    /// A request (`request(_:)` on the subscription) or a demand returned from
    /// `receive(_:)`.
    func markDemand(_ event: StageEvent) throws {
        guard open[event.node] != nil, let tid = tid(of: event.node) else { return }
        var args: TraceArgs = ["stage": .int(Int64(event.node)), "demand": .string(event.demand.description)]
        if event.kind == .request, let sharers = graph[event.node]?.sharers, !sharers.isEmpty {
            args["shared_with"] = .string(sharers.map { "#\($0)" }.joined(separator: " "))
        }
        try emit(TraceEvent(.instant, name: event.kind == .request ? "request" : "demand", category: "demand",
                            pid: pid, tid: tid, ts: us(event.time), scope: .thread, args: args))
    }

    func markCompletion(_ event: StageEvent, on id: NodeID) throws {
        guard let tid = tid(of: id) else { return }
        var args: TraceArgs = ["stage": .int(Int64(id))]
        if event.kind == .failed { args["error"] = .string(event.text) }
        try emit(TraceEvent(.instant, name: event.kind == .failed ? "failed" : "finished", category: "completion",
                            pid: pid, tid: tid, ts: us(event.time), scope: .thread, args: args))
    }

    // MARK: - Cancels: instants joined by arrows

    /// Writes each changed wave as one run: the origin's instant and a flow start per
    /// reached stage, then each reached stage's instant and its flow end.
    func writeWaves() throws {
        for (wave, continued) in waves.takeChanged() {
            let origin = wave.origin
            let name = wave.cause == .inspector ? "inspector cancel" : "cancel"
            var flows: [UInt64] = []
            if let tid = origin.tid {
                var args: TraceArgs = ["stage": .int(Int64(origin.id)), "cause": .string(wave.cause.rawValue)]
                let label: String
                if continued {
                    label = "cancel (continued)"
                    args["reaches"] = .string(wave.pending.map { "#\($0.id)" }.joined(separator: " "))
                } else if wave.originCancelled {
                    label = "cancelled"
                } else {
                    label = "cancels upstream"
                }
                try emit(TraceEvent(.instant, name: label, category: "cancel", pid: pid, tid: tid, ts: us(origin.time),
                                    scope: .thread, args: args))
                for target in wave.pending where target.tid != nil {
                    let id = nextFlowID()
                    flows.append(id)
                    try emit(TraceEvent(.flowStart, name: name, category: "cancel", pid: pid, tid: tid, ts: us(origin.time), id: id))
                }
            }
            var next = flows.makeIterator()
            for target in wave.pending {
                guard let tid = target.tid else { continue }
                try emit(TraceEvent(.instant, name: "cancelled", category: "cancel", pid: pid, tid: tid, ts: us(target.time),
                                    scope: .thread, args: ["stage": .int(Int64(target.id)), "cause": .string(wave.cause.rawValue),
                                                           "cancelled_by": .int(Int64(origin.id))]))
                if let id = next.next() {
                    try emit(TraceEvent(.flowEnd, name: name, category: "cancel", pid: pid, tid: tid, ts: us(target.time),
                                        id: id, bindsEnclosing: true))
                    summary.flows += 1
                }
            }
        }
    }

    // MARK: - Lints

    /// Lints found since the last look, each once, as an instant on its stage's track: at
    /// the time it was found, or at the stage's end if it ended before.
    func writeLints() throws {
        guard let linter = options.linter else { return }
        for lint in linter.lints(graph, now: lastTime) {
            guard reportedLints.insert(LintKey(kind: lint.kind, node: lint.node)).inserted,
                  let tid = tid(of: lint.node) else { continue }
            let ended = open[lint.node] == nil ? graph[lint.node]?.endedNanos : nil
            try emit(TraceEvent(.instant, name: "lint: \(lint.kind.rawValue)", category: "lint", pid: pid, tid: tid,
                                ts: us(min(lastTime, ended ?? lastTime)), scope: .thread,
                                args: ["stage": .int(Int64(lint.node)), "message": .string(lint.message)]))
            summary.lints += 1
        }
    }

    // MARK: - Counters and names

    /// The events lost so far: dropped by the probe (its buffer was full) and skipped by
    /// the recorder (it fell behind and resynchronised from a snapshot).
    func writeLostCounter() throws {
        try emit(TraceEvent(.counter, name: "events lost", category: "lost", pid: pid, ts: us(lastTime),
                            args: ["dropped": .int(Int64(dropped)), "skipped": .int(Int64(skipped))]))
    }

    /// Names the tracks of pipelines that are over (or, at the end, of every pipeline).
    func nameTracks(_ pipelines: [LaneBook.Pipeline]) throws {
        for pipeline in pipelines {
            let root = graph[pipeline.root]?.info
            for lane in 0..<pipeline.laneCount {
                let tid = lanes.tid(pipeline: pipeline.ordinal, lane: lane)
                try emit(TraceEvent(.metadata, name: "thread_name", pid: pid, tid: tid,
                                    args: ["name": .string(TrackNames.name(of: pipeline, root: root, lane: lane))]))
                try emit(TraceEvent(.metadata, name: "thread_sort_index", pid: pid, tid: tid,
                                    args: ["sort_index": .int(Int64(tid))]))
            }
            summary.pipelines += 1
        }
    }

    func nameProcess() throws {
        guard !processNamed else { return }
        processNamed = true
        try emit(TraceEvent(.metadata, name: "process_name", pid: pid, args: ["name": .string(processName)]))
        try emit(TraceEvent(.metadata, name: "process_labels", pid: pid, args: ["labels": "Pipescope recording"]))
    }
}
