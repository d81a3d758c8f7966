import PipescopeGraph
import PipescopeModel

/// Turns a recording's messages into Chrome trace events (the JSON that Perfetto and
/// chrome://tracing open), in one pass, writing as it goes.
///
/// The events are folded into a ``Graph`` (the same fold as the inspector's) one at a
/// time, and each one is drawn from what it changed:
/// - the recorded program is one process (its name and pid);
/// - each pipeline is a track (a thread), named after its operators; see ``LaneBook``;
/// - each stage is a complete slice (`X`) from its subscribe to its end, nested under its
///   downstream, with its status, cause, demand and value count in `args`;
/// - values, requests, completions, cancels and lints are instants (`i`) on their stage's
///   track; a cancel draws arrows (flows `s`/`f`) from the stage that cancelled to each
///   stage it reached (``CancelWaves``);
/// - events the probe dropped, or the recorder skipped, are a counter (`C`).
///
/// Memory holds the live stages and a short window of ended ones (``Options/retention``),
/// not the events: ended stages are written and pruned as the recording goes.
///
/// ```swift
/// let writer = try TraceFileWriter(path: "out.json")
/// let exporter = TraceExporter(sink: writer)
/// for message in messages { try exporter.consume(message) }   // .attached, .snapshot, .batch
/// let summary = try exporter.finish()
/// try writer.finish()
/// ```
public final class TraceExporter {
    public struct Options: Sendable {
        /// The lints to draw; nil draws none.
        public var linter: Linter?
        /// How long ended stages stay in the exporter's graph (recording time): late
        /// events (after-terminal lints) are seen within it.
        public var retention: Retention
        /// How often, in the recording's time (nanoseconds), the lints are looked for and
        /// then the graph pruned (and always at the end): lints are about seconds (a
        /// stall, a leak) and both go through every stage, so not after every batch; and
        /// as pruning waits for the lints, every stage is linted before it is forgotten.
        public var lintInterval: Int64

        public init(linter: Linter? = Linter(), retention: Retention = Retention(seconds: 2, maxEndedPipelines: 100),
                    lintInterval: Int64 = 100_000_000) {
            self.linter = linter
            self.retention = retention
            self.lintInterval = lintInterval
        }

        /// Whether the lints and pruning are due at `now`, last done at `last` (nil:
        /// never); if so, `last` becomes `now`.
        func lintsDue(now: Int64, last: inout Int64?) -> Bool {
            if let previous = last, now - previous < lintInterval { return false }
            last = now
            return true
        }
    }

    /// A stage whose slice is open: it subscribed and has not ended.
    struct OpenSlice {
        /// When it subscribed (nanoseconds since 1970).
        var start: Int64
        /// Where its slice starts: no earlier than the recording, after its downstream's.
        var visibleStart: Int64
        var tid: Int
        /// Values it had received when the recording started.
        var valuesBefore: Int
        /// Why the slice starts later than the stage subscribed, if it does.
        var startNote: String?
    }

    let sink: TraceEventSink
    let options: Options
    var graph = Graph()
    var pid = 1
    var processName = "recording"
    var processNamed = false
    /// The recording's start (nanoseconds since 1970): trace time 0. Set by the first
    /// batch's first event.
    var origin: Int64?
    /// The latest event time seen.
    var lastTime: Int64 = 0
    var lanes = LaneBook()
    var open: [NodeID: OpenSlice] = [:]
    /// Tracks of stages whose slice is written, while they stay in the graph (for their
    /// lints and late events).
    var closedTid: [NodeID: Int] = [:]
    var waves = CancelWaves()
    /// Stages that forward to a stage (type erasure), by the stage: they mirror its events.
    var forwarders: [NodeID: [NodeID]] = [:]
    var reportedLints: Set<LintKey> = []
    /// When the lints were last looked for (``Options/lintsDue(now:last:)``).
    var lintedAt: Int64?
    var dropped: UInt64 = 0
    var skipped: UInt64 = 0
    var nextFlow: UInt64 = 1
    public internal(set) var summary = ExportSummary()

    struct LintKey: Hashable {
        var kind: LintKind
        var node: NodeID
    }

    public init(sink: TraceEventSink, options: Options = Options()) {
        self.sink = sink
        self.options = options
    }

    /// Live stages: their slices are open. (Stays small however long the recording: a
    /// test of the bounded memory.)
    public var openStageCount: Int { open.count }
    /// Stages in the exporter's graph, live and recently ended.
    public var graphStageCount: Int { graph.nodes.count }

    // MARK: - Messages

    /// Takes the next message of the recording, in order. The program's name, snapshots
    /// and batches are drawn; other messages are ignored. Throws when the sink cannot
    /// write.
    public func consume(_ message: Message) throws {
        switch message {
        case .attached(let process, let pid, _), .replaying(_, let process, let pid):
            processName = process
            self.pid = pid > 0 ? Int(pid) : 1
            try nameProcess()
        case .snapshot(let snapshot):
            try load(snapshot)
        case .batch(let batch):
            try fold(batch)
        default:
            break
        }
    }

    /// Ends the trace: stages still live end at the last event, with `live at end` in
    /// their args; the tracks get their names; `ending` (why the recording stops here,
    /// when it was cut short) becomes a last instant. Returns what was written.
    public func finish(ending: String? = nil) throws -> ExportSummary {
        if origin == nil { try establishOrigin(fallbackOrigin()) }
        try writeWaves()
        try writeLints()
        for id in open.keys.sorted() { try close(id, at: lastTime, liveAtEnd: true) }
        try nameTracks(lanes.takeAll())
        try nameProcess()
        if let ending {
            try emit(TraceEvent(.instant, name: "recording ends", category: "recording", pid: pid, ts: us(lastTime),
                                scope: .process, args: ["why": .string(ending)]))
        }
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
            try writeLostCounter()
        }
        try endOfBatch()
    }

    /// Draws what one event (already applied to the graph) changed.
    func observe(_ event: StageEvent) throws {
        lastTime = max(lastTime, event.time)
        let id = event.node
        switch event.kind {
        case .subscribe:
            if let node = graph[id], node.status == .subscribing, open[id] == nil, closedTid[id] == nil {
                open(node, at: event.time)
            }
        case .value:
            for target in [id] + mirrors(of: id) { try markValue(event, on: target, mirroredFrom: target == id ? nil : id) }
        case .request, .demand:
            try markDemand(event)
        case .finished, .failed:
            let ids = [id] + mirrors(of: id)
            for target in ids where open[target] != nil {
                try markCompletion(event, on: target)
            }
            for target in ids { try closeIfEnded(target, fallback: event.time) }
        case .cancelled:
            try cancelled(event)
        case .forward:
            if graph[id] != nil, graph[event.other] != nil { forwarders[event.other, default: []].append(id) }
        case .ownerReleased:
            try emit(TraceEvent(.instant, name: "owner released", category: "owner", pid: pid, ts: us(event.time),
                                scope: .process, args: ["owner": .string(event.text), "owner_id": .int(Int64(event.other))]))
        case .subscription, .adopt, .feeds, .owned, .contractBroken, .delivered, .unknown:
            break
        }
    }

    /// Writes the cancels of the batch and the names of the pipelines that ended; when
    /// due (``Options/lintInterval``), the new lints, then forgets what the graph prunes.
    func endOfBatch() throws {
        try writeWaves()
        try nameTracks(lanes.takeEnded())
        guard options.lintsDue(now: lastTime, last: &lintedAt) else { return }
        try writeLints()
        graph.prune(now: lastTime, retention: options.retention)
        if closedTid.count > graph.nodes.count / 2 {
            closedTid = closedTid.filter { graph.nodes[$0.key] != nil }
        }
        if reportedLints.count > 64, reportedLints.count > graph.nodes.count {
            reportedLints = reportedLints.filter { graph.nodes[$0.node] != nil }
        }
        if !forwarders.isEmpty {
            forwarders = forwarders.filter { graph.nodes[$0.key] != nil }
        }
        waves.forget(before: lastTime - 1_000_000_000)
    }

    // MARK: - Cancels

    /// A cancel ends the event's share group (and the stages mirroring them): each
    /// reached stage gets its instant and an arrow from the wave's origin, then its slice.
    private func cancelled(_ event: StageEvent) throws {
        var candidates = [event.node] + (graph[event.node]?.sharers ?? [])
        candidates += candidates.flatMap { mirrors(of: $0) }
        var seen = Set<NodeID>()
        let ended = candidates.filter { id in
            seen.insert(id).inserted && open[id] != nil && graph[id]?.status == .cancelled
        }
        guard !ended.isEmpty else { return }
        // Downstream first: the stage whose downstream is outside the group leads.
        let group = Set(ended)
        let ordered = ended.filter { graph[$0]?.parent.map { !group.contains($0) } ?? true }
            + ended.filter { graph[$0]?.parent.map { group.contains($0) } ?? false }
        let points = ordered.map { CancelWaves.Point(id: $0, time: graph[$0]?.endedNanos ?? event.time, tid: open[$0]?.tid) }
        let below = graph[ordered[0]]?.parent.flatMap { graph[$0] }
        let belowPoint = below.map { CancelWaves.Point(id: $0.id, time: event.time, tid: tid(of: $0.id)) }
        waves.cancelled(points, node: event.node, cause: event.cause ?? .downstream, time: event.time,
                        downstream: belowPoint)
        for id in ordered { try closeIfEnded(id, fallback: event.time) }
    }

    func mirrors(of id: NodeID) -> [NodeID] {
        forwarders.isEmpty ? [] : forwarders[id] ?? []
    }

    /// The track a stage is (or was last) drawn on.
    func tid(of id: NodeID) -> Int? {
        open[id]?.tid ?? closedTid[id]
    }

    // MARK: - Time and output

    /// Microseconds since the recording's start, nanoseconds as decimals; never negative.
    func us(_ nanos: Int64) -> Double {
        Double(max(0, nanos - (origin ?? nanos))) / 1000
    }

    func emit(_ event: TraceEvent) throws {
        try sink.write(event)
        summary.traceEvents += 1
    }

    func nextFlowID() -> UInt64 {
        defer { nextFlow += 1 }
        return nextFlow
    }
}

/// What an export wrote.
public struct ExportSummary: Equatable, Sendable {
    /// Stage events read from the recording's batches.
    public var events = 0
    /// Complete slices: one per stage drawn.
    public var stages = 0
    public var pipelines = 0
    public var values = 0
    /// Arrows from a cancelling stage to a stage its cancel reached.
    public var flows = 0
    public var lints = 0
    /// Stages of the first snapshot that had ended before the recording started: not drawn.
    public var endedBeforeRecording = 0
    /// All trace events written, metadata included.
    public var traceEvents = 0
    /// Trace time 0 and the last event, in nanoseconds since 1970.
    public var originNanos: Int64 = 0
    public var lastEventNanos: Int64 = 0

    public init() {}

    /// The recording's length, in seconds.
    public var seconds: Double { Double(max(0, lastEventNanos - originNanos)) / 1e9 }
}
