import PipescopeGraph
import PipescopeModel

/// The one walk over a recording that every trace format shares: it folds the
/// recording's messages into a ``Graph`` (the inspector's fold), one event at a time, and
/// tells its ``TraceWriter`` what each one changed, in one pass, as it goes:
/// - the recorded program is one process (its name and pid);
/// - each pipeline has tracks (``LaneBook``), named after its operators once it is over
///   (``TrackNames``);
/// - each stage's life is drawn from its subscribe (no earlier than the recording) to its
///   end, or to the end of the recording;
/// - values, requests, completions, cancels and lints are marks on their stage's track;
///   a cancel joins the stage that cancelled to each stage it reached (``CancelWaves``);
///   a stage forwarding to another (type erasure) mirrors its marks;
/// - events the probe dropped or the recorder skipped are counted; a snapshot after a gap
///   resynchronises the drawing (``load(_:)``).
///
/// Memory holds the live stages and a short window of ended ones
/// (``ExportOptions/retention``), not the events: ended stages are drawn and pruned as
/// the recording goes.
///
/// ```swift
/// let walk = TraceWalk(writer: ChromeJSONWriter(sink: try TraceFileWriter(path: "out.json")))
/// for message in messages { try walk.consume(message) }   // .attached, .snapshot, .batch
/// let summary = try walk.finish()
/// ```
final class TraceWalk<Writer: TraceWriter> {
    typealias Track = Writer.Track

    let writer: Writer
    let options: ExportOptions
    var graph = Graph()
    /// The recording's start (nanoseconds since 1970): trace time 0. Set by the first
    /// batch's first event.
    var origin: Int64?
    /// The latest event time seen.
    var lastTime: Int64 = 0
    var lanes = LaneBook()
    var open: [NodeID: OpenStage<Track>] = [:]
    /// Tracks of stages whose life is drawn and over, while they stay in the graph (for
    /// their lints and late events).
    var closed: [NodeID: Track] = [:]
    var waves = CancelWaves<Track>()
    var reportedLints: Set<LintKey> = []
    /// When the lints were last looked for (``ExportOptions/lintsDue(now:last:)``).
    var lintedAt: Int64?
    var dropped: UInt64 = 0
    var skipped: UInt64 = 0
    var summary = ExportSummary()

    struct LintKey: Hashable {
        var kind: LintKind
        var node: NodeID
    }

    init(writer: Writer, options: ExportOptions = ExportOptions()) {
        self.writer = writer
        self.options = options
    }

    /// Live stages: their lives are open. (Stays small however long the recording: a
    /// test of the bounded memory.)
    var openStageCount: Int { open.count }
    /// Stages in the walk's graph, live and recently ended.
    var graphStageCount: Int { graph.nodes.count }

    // MARK: - Messages

    /// Takes the next message of the recording, in order. The program's name, snapshots
    /// and batches are drawn; other messages are ignored. Throws when the writer cannot
    /// write.
    func consume(_ message: Message) throws {
        switch message {
        case .attached(let process, let pid, _), .replaying(_, let process, let pid):
            try writer.process(pid: pid > 0 ? Int(pid) : 1, name: process)
        case .snapshot(let snapshot):
            try load(snapshot)
        case .batch(let batch):
            try fold(Writer.usesEventIDs ? batch.numbered() : batch)
        default:
            break
        }
    }

    /// Ends the trace: stages still live end at the last event, marked live at the end;
    /// every pipeline is named; `ending` (why the recording stops here, when it was cut
    /// short) is said last. Returns what was drawn.
    func finish(ending: String? = nil) throws -> ExportSummary {
        if origin == nil { try establishOrigin(fallbackOrigin()) }
        try writeWaves()
        try writeLints()
        for id in open.keys.sorted() { try close(id, at: lastTime, liveAtEnd: true) }
        try writer.endBatch(last: true)
        try namePipelines(lanes.takeAll())
        let totals = try writer.finish(ending: ending, at: lastTime)
        summary.flows += totals.causeArrows
        summary.traceEvents = totals.traceEvents
        summary.lastEventNanos = lastTime
        summary.originNanos = origin ?? 0
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
            try writer.lost(dropped: dropped, skipped: skipped, at: lastTime)
        }
        try endOfBatch()
    }

    /// Draws what one event (already applied to the graph) changed.
    func observe(_ event: StageEvent) throws {
        lastTime = max(lastTime, event.time)
        let id = event.node
        switch event.kind {
        case .subscribe:
            if let node = graph[id], node.status == .subscribing, open[id] == nil, closed[id] == nil {
                try self.open(node, at: event.time)
            }
        case .value:
            var live: [NodeID] = []
            for target in [id] + graph.mirrors(of: id) {
                guard let track = track(of: target) else { continue }
                let isLive = open[target] != nil
                try writer.value(event, on: target, track: track, live: isLive, mirroredFrom: target == id ? nil : id)
                if isLive {
                    summary.values += 1
                    live.append(target)
                }
            }
            try writer.outstandingChanged(live, at: event.time, graph: &graph)
        case .request, .demand:
            if let stage = open[id] {
                let sharers = event.kind == .request ? graph[id]?.sharers ?? [] : []
                try writer.demand(event, track: stage.track, sharers: sharers)
            }
            let group = demandGroup(of: id, request: event.kind == .request).filter { open[$0] != nil }
            try writer.outstandingChanged(group, at: event.time, graph: &graph)
        case .finished, .failed:
            let ids = [id] + graph.mirrors(of: id)
            for target in ids {
                guard let stage = open[target] else { continue }
                try writer.completion(event, on: target, track: stage.track, mirrored: target != id)
            }
            for target in ids { try closeIfEnded(target, fallback: event.time) }
        case .cancelled:
            try cancelled(event)
        case .ownerReleased:
            try writer.ownerReleased(event)
        case .subscription, .forward, .adopt, .feeds, .owned, .contractBroken, .delivered, .unknown:
            break
        }
    }

    /// Draws the cancels of the batch and names the pipelines that ended; when due
    /// (``ExportOptions/lintInterval``), the new lints, then forgets what the graph prunes.
    func endOfBatch() throws {
        try writeWaves()
        try writer.endBatch(last: false)
        try namePipelines(lanes.takeEnded())
        guard options.lintsDue(now: lastTime, last: &lintedAt) else { return }
        try writeLints()
        graph.prune(now: lastTime, retention: options.retention)
        if closed.count > graph.nodes.count / 2 {
            let gone = closed.keys.filter { !graph.contains($0) }
            for id in gone { closed[id] = nil }
            writer.forget(gone)
        }
        if reportedLints.count > 64, reportedLints.count > graph.nodes.count {
            reportedLints = reportedLints.filter { graph.contains($0.node) }
        }
        waves.forget(before: lastTime - 1_000_000_000)
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
        return ids + ids.flatMap { graph.mirrors(of: $0) }
    }

    /// The track a stage is (or was last) drawn on; nil when it is not drawn.
    func track(of id: NodeID) -> Track? {
        open[id]?.track ?? closed[id]
    }

    func namePipelines(_ pipelines: [LaneBook.Pipeline]) throws {
        guard !pipelines.isEmpty else { return }
        summary.pipelines += pipelines.count
        try writer.pipelinesEnded(pipelines, graph: graph)
    }
}
