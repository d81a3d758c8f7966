import PipescopeGraph
import PipescopeModel

/// Draws a recording as Chrome trace events (the JSON that Perfetto and chrome://tracing
/// open), from what ``TraceWalk`` finds:
/// - the recorded program is one process (its name and pid);
/// - each pipeline is a track (a thread) per lane of ``LaneBook``, named after its
///   operators (``TrackNames``);
/// - each stage is a complete slice (`X`) from its subscribe to its end, nested under its
///   downstream, with its status, cause, demand and value count in `args`;
/// - values, requests, completions, cancels and lints are instants (`i`) on their stage's
///   track; a cancel draws arrows (flows `s`/`f`) from the stage that cancelled to each
///   stage it reached;
/// - events the probe dropped, or the recorder skipped, are a counter (`C`).
///
/// ```swift
/// let file = try TraceFileWriter(path: "out.json")
/// let walk = TraceWalk(writer: ChromeJSONWriter(sink: file))
/// for message in messages { try walk.consume(message) }
/// let summary = try walk.finish()
/// try file.finish()
/// ```
final class ChromeJSONWriter: TraceWriter {
    /// A stage's track: its thread id.
    typealias Track = Int

    static var usesEventIDs: Bool { false }

    let sink: TraceEventSink
    var pid = 1
    var processName = "recording"
    var processNamed = false
    /// Trace time 0 (nanoseconds since 1970).
    var origin: Int64?
    var nextFlow: UInt64 = 1
    /// Trace events written, metadata included.
    private(set) var eventCount = 0

    init(sink: TraceEventSink) {
        self.sink = sink
    }

    func process(pid: Int, name: String) throws {
        processName = name
        self.pid = pid
        try nameProcess()
    }

    func recordingStarts(at origin: Int64) throws {
        self.origin = origin
    }

    func finish(ending: String?, at time: Int64) throws -> WriterTotals {
        try nameProcess()
        if let ending {
            try emit(TraceEvent(.instant, name: "recording ends", category: "recording", pid: pid, ts: us(time),
                                scope: .process, args: ["why": .string(ending)]))
        }
        return WriterTotals(traceEvents: eventCount)
    }

    func endBatch(last: Bool) throws {}
    func forget(_ ids: [NodeID]) {}

    // MARK: - Stages

    func openStage(_ stage: StageOpening<Int>, graph: Graph) throws -> Int {
        stage.placement.tid
    }

    /// Writes a stage's complete slice, from its subscribe to its end, cut to nest on its
    /// track; its args say where and why the slice is not the stage's whole life.
    func closeStage(_ closing: StageClosing<Int>, graph: Graph) throws {
        let stage = closing.stage
        let (end, visibleEnd) = (closing.end, closing.visibleEnd)
        var args = sliceArgs(graph[closing.id], owner: graph.owner(of: closing.id), id: closing.id, liveAtEnd: closing.liveAtEnd)
        if stage.subscribed < stage.visibleStart || visibleEnd < end {
            args["lifetime_us"] = .double(Double(end - stage.subscribed) / 1000)
        }
        if let startNote = stage.startNote { args["slice_start"] = .string(startNote) }
        if let valuesBefore = stage.valuesBefore { args["values_before_recording"] = .int(Int64(valuesBefore)) }
        if visibleEnd < end {
            args["slice_end"] = .string("cut at its downstream's end: it outlived it by "
                + "\(TraceWalk<ChromeJSONWriter>.duration(end - visibleEnd))"
                + " (a cancel reaches an upstream stage after its downstream)")
        }
        if let note = closing.note { args["note"] = .string(note) }
        let name = graph[closing.id]?.operatorName ?? "stage \(closing.id)"
        try emit(TraceEvent(.complete, name: name, category: "stage", pid: pid, tid: stage.track,
                            ts: us(stage.visibleStart), dur: Double(visibleEnd - stage.visibleStart) / 1000, args: args))
    }

    /// What a stage's slice says about it: what it is, how it ended, what it received.
    private func sliceArgs(_ node: NodeSummary?, owner: Owner?, id: NodeID, liveAtEnd: Bool) -> TraceArgs {
        var args: TraceArgs = ["stage": .int(Int64(id))]
        guard let node else { return args }
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
        if let owner { args["owner"] = .string(owner.name) }
        if node.orphaned { args["orphaned"] = "an upstream stage was cancelled by someone else: nothing more will come" }
        if node.afterEnd > 0 { args["after_end"] = .int(Int64(node.afterEnd)) }
        if !node.contractBroken.isEmpty { args["contract_broken"] = .string(node.contractBroken.joined(separator: "; ")) }
        return args
    }

    // MARK: - Time and output

    /// Microseconds since the recording's start, nanoseconds as decimals; never negative.
    func us(_ nanos: Int64) -> Double {
        Double(max(0, nanos - (origin ?? nanos))) / 1000
    }

    func emit(_ event: TraceEvent) throws {
        try sink.write(event)
        eventCount += 1
    }

    func nextFlowID() -> UInt64 {
        defer { nextFlow += 1 }
        return nextFlow
    }
}
