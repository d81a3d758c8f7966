import PipescopeGraph
import PipescopeModel

/// Turns a recording's messages into Perfetto's own trace format (protobuf TracePackets),
/// in one pass, writing as it goes: what ui.perfetto.dev and trace_processor read
/// natively, where ``TraceExporter``'s JSON is their legacy format.
///
/// The events are folded into a ``Graph`` (the inspector's fold) one at a time, and each
/// is drawn from what it changed, on tracks that follow the stage tree:
/// - the recorded program is a process track (its pid and name); each pipeline a track
///   under it, named as the JSON names it (``TrackNames``); each stage a track under its
///   downstream stage's track (a root's: its pipeline's), in the tree's order
///   (`child_ordering = EXPLICIT`, `sibling_order_rank`);
/// - a stage's life is one slice on its track, from its subscribe to its end (or the
///   end of the recording), named by how it ended, with its source location;
/// - values, requests, demands and completions are instants on the stage's track, with
///   the value text and the demand as debug annotations; a value's arrow comes from the
///   event that caused it (``CauseFlows``), a cancel's arrows go from the stage that
///   cancelled to each stage it reached (``CancelWaves``);
/// - each stage's outstanding demand is a counter track under its track (-1 is
///   unlimited); the events the probe dropped and the recorder skipped are counters of
///   the process.
///
/// Memory holds the live stages, a short window of ended ones and the events of the last
/// two batches (their arrows), not the recording.
///
/// ```swift
/// let file = try PerfettoFileWriter(path: "app.perfetto-trace")
/// let exporter = PerfettoExporter(file: file)
/// for message in messages { try exporter.consume(message) }
/// let summary = try exporter.finish()
/// try file.finish()
/// ```
final class PerfettoExporter {
    /// A stage whose life slice is open.
    struct OpenStage {
        /// When it subscribed (nanoseconds since 1970).
        var start: Int64
        /// Its track as first described (parent and rank), named again at its end.
        var track: PerfettoTrack
    }

    let sequence: PerfettoSequence
    /// The events the arrows held back (``CauseFlows``), written a batch or two behind
    /// the others: on a sequence of their own, so that each sequence's times mostly grow
    /// and stay small deltas on its incremental clock.
    var delayed: PerfettoSequence { flows.sequence }
    let options: TraceExporter.Options
    var graph = Graph()
    var pid = 1
    var processName = "recording"
    var processDescribed = false
    /// The recording's start: its first event. Nil until then.
    var origin: Int64?
    var lastTime: Int64 = 0
    /// Which pipeline each stage belongs to, and the pipelines' operator chains (their
    /// names). Its lanes (the JSON's nesting) are not used.
    var lanes = LaneBook()
    var open: [NodeID: OpenStage] = [:]
    /// Stages with a track, while they stay in the graph (for their late events).
    var drawn: Set<NodeID> = []
    /// Pipelines whose track is described and not yet named.
    var pipelineTracks: Set<Int> = []
    /// Each stage's demand as its counter last showed it.
    var demandShown: [NodeID: Int64] = [:]
    var waves = CancelWaves()
    var flows: CauseFlows
    var forwarders: [NodeID: [NodeID]] = [:]
    var reportedLints: Set<TraceExporter.LintKey> = []
    /// When the lints were last looked for (``TraceExporter/Options/lintsDue(now:last:)``).
    var lintedAt: Int64?
    var dropped: UInt64 = 0
    var skipped: UInt64 = 0
    var lostDescribed = false
    var summary = ExportSummary()

    init(sequence: PerfettoSequence, options: TraceExporter.Options = .init()) {
        self.sequence = sequence
        self.flows = CauseFlows(sequence: sequence.sibling())
        self.options = options
    }

    /// Arrows from a cause that could not be drawn: the cause was written already, or
    /// is not drawn.
    var causesMissed: Int { flows.missed }
    var openStageCount: Int { open.count }

    // MARK: - Messages

    func consume(_ message: Message) throws {
        switch message {
        case .attached(let process, let pid, _), .replaying(_, let process, let pid):
            processName = process
            self.pid = pid > 0 ? Int(pid) : 1
            try describeProcess()
        case .snapshot(let snapshot):
            try load(snapshot)
        case .batch(let batch):
            try fold(batch.numbered())
        default:
            break
        }
    }

    /// Ends the trace: stages still live end at the last event, named "live at end";
    /// every waiting event is written and the pipelines are named; `ending` (why the
    /// recording stops here, when it was cut short) becomes a last instant.
    func finish(ending: String? = nil) throws -> ExportSummary {
        if origin == nil { try establishOrigin(fallbackOrigin()) }
        try writeWaves()
        try writeLints()
        for id in open.keys.sorted() { try close(id, at: lastTime, liveAtEnd: true) }
        try flows.finish()
        try namePipelines(lanes.takeAll())
        try describeProcess()
        if let ending {
            try emit(PerfettoEvent(.instant, track: PerfettoUUID.process, time: lastTime, name: "recording ends",
                                   annotations: [("why", .string(ending))]))
        }
        summary.flows = flows.arrows + summary.flows
        summary.lastEventNanos = lastTime
        summary.originNanos = origin ?? 0
        summary.traceEvents = sequence.eventCount + flows.eventCount
        return summary
    }

    // MARK: - Batches

    func fold(_ batch: EventBatch) throws {
        if origin == nil, let first = batch.events.first?.time { try establishOrigin(first) }
        try batch.forEachEvent { event, newStage in
            if let newStage { graph.insert(newStage) }
            graph.apply(event)
            try observe(event)
        }
        graph.finish(batch)
        summary.events += batch.events.count
        if batch.trailer.dropped != dropped {
            dropped = batch.trailer.dropped
            try writeLost()
        }
        try endOfBatch()
    }

    func observe(_ event: StageEvent) throws {
        lastTime = max(lastTime, event.time)
        let id = event.node
        switch event.kind {
        case .subscribe:
            if let node = graph[id], node.status == .subscribing, open[id] == nil, !drawn.contains(id) {
                try openStage(node, at: event.time)
            }
        case .value:
            markValue(event, on: id, mirrored: false)
            // Unlimited demand stays unlimited whatever is delivered: only a request changes it.
            if demandShown[id] != -1 { try sampleDemand(of: id, at: event.time) }
            if !forwarders.isEmpty {
                let targets = mirrors(of: id)
                for target in targets { markValue(event, on: target, mirrored: true) }
                try sampleDemand(of: targets, at: event.time)
            }
        case .request, .demand:
            markDemand(event)
            try sampleDemand(of: demandGroup(of: id, request: event.kind == .request), at: event.time)
        case .finished, .failed:
            let ids = [id] + mirrors(of: id)
            for target in ids where open[target] != nil { markCompletion(event, on: target, mirrored: target != id) }
            for target in ids { try closeIfEnded(target, fallback: event.time) }
        case .cancelled:
            try cancelled(event)
        case .forward:
            if graph[id] != nil, graph[event.other] != nil { forwarders[event.other, default: []].append(id) }
        case .ownerReleased:
            flows.add(PerfettoEvent(.instant, track: PerfettoUUID.process, time: event.time, name: "owner released",
                                    annotations: [("owner", .string(event.text)), ("owner_id", .int(Int64(event.other)))]),
                      id: 0, causedBy: 0)
        case .subscription, .adopt, .feeds, .owned, .contractBroken, .delivered, .unknown:
            break
        }
    }

    /// Writes the batch's cancels, the events no arrow can reach any more and the names
    /// of the pipelines that ended; when due (``TraceExporter/Options/lintInterval``),
    /// the new lints, then forgets what the graph prunes.
    func endOfBatch() throws {
        try writeWaves()
        try flows.endBatch()
        try namePipelines(lanes.takeEnded())
        guard options.lintsDue(now: lastTime, last: &lintedAt) else { return }
        try writeLints()
        graph.prune(now: lastTime, retention: options.retention)
        if drawn.count > 64, drawn.count > graph.nodes.count * 2 {
            drawn = drawn.filter { graph.nodes[$0] != nil || open[$0] != nil }
            demandShown = demandShown.filter { drawn.contains($0.key) }
        }
        if reportedLints.count > 64, reportedLints.count > graph.nodes.count {
            reportedLints = reportedLints.filter { graph.nodes[$0.node] != nil }
        }
        if !forwarders.isEmpty { forwarders = forwarders.filter { graph.nodes[$0.key] != nil } }
        waves.forget(before: lastTime - 1_000_000_000)
    }

    // MARK: - Cancels

    /// As ``TraceExporter`` draws them: the stages one cancel ended, downstream first,
    /// join a wave from the stage that cancelled (``CancelWaves``).
    private func cancelled(_ event: StageEvent) throws {
        var candidates = [event.node] + (graph[event.node]?.sharers ?? [])
        candidates += candidates.flatMap { mirrors(of: $0) }
        var seen = Set<NodeID>()
        let ended = candidates.filter { id in
            seen.insert(id).inserted && open[id] != nil && graph[id]?.status == .cancelled
        }
        guard !ended.isEmpty else { return }
        let group = Set(ended)
        let ordered = ended.filter { graph[$0]?.parent.map { !group.contains($0) } ?? true }
            + ended.filter { graph[$0]?.parent.map { group.contains($0) } ?? false }
        let points = ordered.map { CancelWaves.Point(id: $0, time: graph[$0]?.endedNanos ?? event.time, tid: 1) }
        let below = graph[ordered[0]]?.parent.flatMap { graph[$0] }
        let belowPoint = below.map { CancelWaves.Point(id: $0.id, time: event.time, tid: drawn.contains($0.id) ? 1 : nil) }
        waves.cancelled(points, node: event.node, cause: event.cause ?? .downstream, time: event.time, downstream: belowPoint)
        for id in ordered { try closeIfEnded(id, fallback: event.time) }
    }

    func mirrors(of id: NodeID) -> [NodeID] {
        forwarders.isEmpty ? [] : forwarders[id] ?? []
    }

    /// The stages a request or demand on `id` changes: a request goes to the shared
    /// subscription, so every stage sharing it; and the stages mirroring them.
    private func demandGroup(of id: NodeID, request: Bool) -> [NodeID] {
        var ids = [id]
        if request, let node = graph[id] {
            let owner = node.subscriptionOwner ?? id
            ids = [owner] + (graph[owner]?.sharers ?? [])
            if !ids.contains(id) { ids.append(id) }
        }
        return ids + ids.flatMap { mirrors(of: $0) }
    }

    // MARK: - Output

    func emit(_ event: PerfettoEvent) throws {
        try sequence.write(event)
    }
}

/// The track uuids: a stage's, its demand counter's and a pipeline's carry their id in
/// the upper bits and a kind in the lowest three; the process and its counters are small
/// constants of their own kinds.
enum PerfettoUUID {
    static func stage(_ id: NodeID) -> UInt64 { id << 3 | 1 }
    static func demand(_ id: NodeID) -> UInt64 { id << 3 | 2 }
    static func pipeline(_ ordinal: Int) -> UInt64 { UInt64(ordinal) << 3 | 3 }
    static let process: UInt64 = 4
    static let dropped: UInt64 = 5
    static let skipped: UInt64 = 6
}
