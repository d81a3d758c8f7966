import Foundation
import PipescopeGraph

// MARK: - A stage's life as one complete slice

extension TraceExporter {
    /// A stage subscribed (or was live when the recording started): its slice opens on
    /// the track ``LaneBook`` gives it, no earlier than the recording's start and
    /// `notBefore`.
    func open(_ node: NodeSummary, at start: Int64, notBefore: Int64? = nil) {
        let origin = self.origin ?? start
        let from = max(start, origin, notBefore ?? start)
        let (placement, visibleStart) = lanes.place(node.id, parent: node.parent, start: from,
                                                    operatorName: node.operatorName, subscriber: node.subscriber)
        var note: String?
        if start < origin {
            note = "starts with the recording: the stage subscribed \(duration(origin - start)) before it"
        } else if start < from {
            note = "subscribed while events were skipped: starts where the gap was noticed"
        } else if start < visibleStart {
            note = "starts 1 ns after its downstream's (they subscribed in the same nanosecond)"
        }
        open[node.id] = OpenSlice(start: start, visibleStart: visibleStart, tid: placement.tid,
                                  valuesBefore: start < origin ? node.values : 0, startNote: note)
    }

    /// Closes the slice of a stage that the graph says has ended.
    func closeIfEnded(_ id: NodeID, fallback: Int64) throws {
        guard open[id] != nil, let node = graph[id], node.status.isTerminal else { return }
        try close(id, at: node.endedNanos ?? fallback)
    }

    /// Writes a stage's complete slice, from its subscribe to `end`.
    /// - Parameters:
    ///   - liveAtEnd: the recording ended with the stage still live.
    ///   - note: why the end is not the stage's own (events skipped, …).
    func close(_ id: NodeID, at end: Int64, liveAtEnd: Bool = false, note: String? = nil) throws {
        guard let slice = open.removeValue(forKey: id) else { return }
        let visibleEnd = lanes.end(id, at: max(end, slice.visibleStart))
        closedTid[id] = slice.tid
        var args = sliceArgs(id, liveAtEnd: liveAtEnd)
        if slice.start < slice.visibleStart || visibleEnd < end {
            args["lifetime_us"] = .double(Double(end - slice.start) / 1000)
        }
        if let startNote = slice.startNote { args["slice_start"] = .string(startNote) }
        if slice.start < (origin ?? slice.start) { args["values_before_recording"] = .int(Int64(slice.valuesBefore)) }
        if visibleEnd < end {
            args["slice_end"] = .string("cut at its downstream's end: it outlived it by \(duration(end - visibleEnd))"
                + " (a cancel reaches an upstream stage after its downstream)")
        }
        if let note { args["note"] = .string(note) }
        let name = graph[id]?.operatorName ?? "stage \(id)"
        try emit(TraceEvent(.complete, name: name, category: "stage", pid: pid, tid: slice.tid,
                            ts: us(slice.visibleStart), dur: Double(visibleEnd - slice.visibleStart) / 1000, args: args))
        summary.stages += 1
    }

    /// What a stage's slice says about it: what it is, how it ended, what it received.
    private func sliceArgs(_ id: NodeID, liveAtEnd: Bool) -> TraceArgs {
        var args: TraceArgs = ["stage": .int(Int64(id))]
        guard let node = graph[id] else { return args }
        args["status"] = .string(liveAtEnd ? "live at the end of the recording (\(node.status.rawValue))" : node.status.rawValue)
        if liveAtEnd { args["live_at_end"] = true }
        if let cause = node.cause { args["cause"] = .string(cause.rawValue) }
        if let error = node.error { args["error"] = .string(error) }
        args["demand"] = .string(node.requested.description)
        args["demand_outstanding"] = .string(node.outstanding.description)
        args["values"] = .int(Int64(node.values))
        if let last = node.lastValue { args["last_value"] = .string(last) }
        args["operator"] = .string(node.operatorName)
        args["type"] = .string(node.publisherType)
        args["subscriber"] = .string(node.subscriber)
        args["thread"] = .string(node.thread)
        if let parent = node.parent { args["downstream"] = .int(Int64(parent)) }
        if let owner = node.ownerID.flatMap({ graph.owners[$0] }) { args["owner"] = .string(owner.name) }
        if node.orphaned { args["orphaned"] = "an upstream stage was cancelled by someone else: nothing more will come" }
        if node.afterEnd > 0 { args["after_end"] = .int(Int64(node.afterEnd)) }
        if !node.contractBroken.isEmpty { args["contract_broken"] = .string(node.contractBroken.joined(separator: "; ")) }
        return args
    }

    /// "12.345 µs", "3.2 s": a duration for a person.
    func duration(_ nanos: Int64) -> String {
        switch nanos {
        case ..<1_000: return "\(nanos) ns"
        case ..<1_000_000: return String(format: "%.3f µs", Double(nanos) / 1_000)
        case ..<1_000_000_000: return String(format: "%.3f ms", Double(nanos) / 1_000_000)
        default: return String(format: "%.3f s", Double(nanos) / 1_000_000_000)
        }
    }
}
