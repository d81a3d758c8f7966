import Foundation
import PipescopeGraph

// MARK: - A stage's life, from its subscribe to its end

extension TraceWalk {
    /// A stage subscribed (or was live when the recording started, or appeared in a
    /// gap): its life is drawn from `start`, no earlier than the recording's start and
    /// `notBefore`, on the track ``LaneBook`` gives it.
    func open(_ node: NodeSummary, at start: Int64, notBefore: Int64? = nil) throws {
        let origin = self.origin ?? start
        let from = max(start, origin, notBefore ?? start)
        let (placement, visibleStart) = lanes.place(node.id, parent: node.parent, start: from,
                                                    operatorName: node.operatorName, subscriber: node.subscriber)
        var note: String?
        if start < origin {
            note = "starts with the recording: the stage subscribed \(Self.duration(origin - start)) before it"
        } else if start < from {
            note = "subscribed while events were skipped: starts where the gap was noticed"
        } else if start < visibleStart {
            note = "starts 1 ns after its downstream's (they subscribed in the same nanosecond)"
        }
        let opening = StageOpening(node: node, from: from, placement: placement,
                                   downstream: node.parent.flatMap { track(of: $0) })
        let drawnOn = try writer.openStage(opening, graph: graph)
        open[node.id] = OpenStage(subscribed: start, from: from, visibleStart: visibleStart, track: drawnOn,
                                  valuesBefore: start < origin ? node.values : nil, startNote: note)
    }

    /// Closes the life of a stage that the graph says has ended.
    func closeIfEnded(_ id: NodeID, fallback: Int64) throws {
        guard open[id] != nil, let node = graph[id], node.status.isTerminal else { return }
        try close(id, at: node.endedNanos ?? fallback)
    }

    /// Ends a stage's life at `end`.
    /// - Parameters:
    ///   - liveAtEnd: the recording ended with the stage still live.
    ///   - note: why the end is not the stage's own (events skipped, …).
    func close(_ id: NodeID, at end: Int64, liveAtEnd: Bool = false, note: String? = nil) throws {
        guard let stage = open.removeValue(forKey: id) else { return }
        let visibleEnd = lanes.end(id, at: max(end, stage.visibleStart))
        closed[id] = stage.track
        try writer.closeStage(StageClosing(id: id, stage: stage, end: end, visibleEnd: visibleEnd, liveAtEnd: liveAtEnd,
                                           note: note), graph: graph)
        summary.stages += 1
    }

    // MARK: - Cancels

    /// A cancel ends the event's share group (and the stages mirroring them): the reached
    /// stages, downstream first, join a wave from the stage that cancelled
    /// (``CancelWaves``), drawn at the end of the batch; their lives end now.
    func cancelled(_ event: StageEvent) throws {
        var candidates = [event.node] + (graph[event.node]?.sharers ?? [])
        candidates += candidates.flatMap { graph.mirrors(of: $0) }
        var seen = Set<NodeID>()
        let ended = candidates.filter { id in
            seen.insert(id).inserted && open[id] != nil && graph[id]?.status == .cancelled
        }
        guard !ended.isEmpty else { return }
        // Downstream first: the stage whose downstream is outside the group leads.
        let group = Set(ended)
        let ordered = ended.filter { graph[$0]?.parent.map { !group.contains($0) } ?? true }
            + ended.filter { graph[$0]?.parent.map { group.contains($0) } ?? false }
        let points = ordered.map {
            CancelWaves<Track>.Point(id: $0, time: graph[$0]?.endedNanos ?? event.time, track: open[$0]?.track)
        }
        let below = graph[ordered[0]]?.parent.flatMap { graph[$0] }
        let belowPoint = below.map { CancelWaves<Track>.Point(id: $0.id, time: event.time, track: track(of: $0.id)) }
        waves.cancelled(points, node: event.node, cause: event.cause ?? .downstream, time: event.time,
                        downstream: belowPoint)
        for id in ordered { try closeIfEnded(id, fallback: event.time) }
    }

    /// Draws each changed wave: its origin's instant with an arrow to each reached
    /// stage's instant.
    func writeWaves() throws {
        for (wave, continued) in waves.takeChanged() {
            let label = continued ? "cancel (continued)" : wave.originCancelled ? "cancelled" : "cancels upstream"
            let reached = wave.pending.compactMap { point in point.track.map { (point: point, track: $0) } }
            try writer.cancelWave(CancelDrawing(wave: wave, label: label, continued: continued, reached: reached))
            if wave.origin.track != nil { summary.flows += reached.count }
        }
    }

    // MARK: - Lints

    /// Lints found since the last look, each once, on its stage's track: at the time it
    /// was found, or at the stage's end if it ended before.
    func writeLints() throws {
        guard let linter = options.linter else { return }
        for lint in linter.lints(graph, now: lastTime) {
            guard let track = track(of: lint.node),
                  reportedLints.insert(LintKey(kind: lint.kind, node: lint.node)).inserted else { continue }
            let ended = open[lint.node] == nil ? graph[lint.node]?.endedNanos : nil
            try writer.lint(lint, track: track, at: min(lastTime, ended ?? lastTime))
            summary.lints += 1
        }
    }

    /// "12.345 µs", "3.2 s": a duration for a person.
    static func duration(_ nanos: Int64) -> String {
        switch nanos {
        case ..<1_000: return "\(nanos) ns"
        case ..<1_000_000: return String(format: "%.3f µs", Double(nanos) / 1_000)
        case ..<1_000_000_000: return String(format: "%.3f ms", Double(nanos) / 1_000_000)
        default: return String(format: "%.3f s", Double(nanos) / 1_000_000_000)
        }
    }
}
