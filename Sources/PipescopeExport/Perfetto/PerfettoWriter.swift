import PipescopeGraph
import PipescopeModel

/// Draws a recording in Perfetto's own trace format (protobuf TracePackets), from what
/// ``TraceWalk`` finds: what ui.perfetto.dev and trace_processor read natively, where
/// ``ChromeJSONWriter``'s JSON is their legacy format.
///
/// Its tracks follow the stage tree:
/// - the recorded program is a process track (its pid and name); each pipeline a track
///   under its "pipelines" track, in their order, named as the JSON names it
///   (``TrackNames``); each stage a track under its
///   downstream stage's track (a root's: its pipeline's), in the tree's order
///   (`child_ordering = EXPLICIT`, `sibling_order_rank`);
/// - a stage's life is one slice on its track, from its subscribe to its end (or the
///   end of the recording), named by how it ended, with its source location;
/// - values, requests, demands and completions are instants on the stage's track, with
///   the value text and the demand as debug annotations; a value's arrow comes from the
///   event that caused it (``CauseFlows``), a cancel's arrows go from the stage that
///   cancelled to each stage it reached;
/// - each stage's outstanding demand is a counter track under its track (-1 is
///   unlimited); the events the probe dropped and the recorder skipped are counters of
///   the process.
///
/// Memory holds the events of the last two batches (their arrows), not the recording.
///
/// ```swift
/// let file = try PerfettoFileWriter(path: "app.perfetto-trace")
/// let walk = TraceWalk(writer: PerfettoWriter(sequence: PerfettoSequence(file: file)))
/// for message in messages { try walk.consume(message) }
/// let summary = try walk.finish()
/// try file.finish()
/// ```
final class PerfettoWriter: TraceWriter {
    /// A stage's track: its uuid (``PerfettoUUID/stage(_:)``).
    typealias Track = UInt64

    static var usesEventIDs: Bool { true }

    let sequence: PerfettoSequence
    /// The events the arrows held back (``CauseFlows``), written a batch or two behind
    /// the others: on a sequence of their own, so that each sequence's times mostly grow
    /// and stay small deltas on its incremental clock.
    var delayed: PerfettoSequence { flows.sequence }
    var flows: CauseFlows
    var pid = 1
    var processName = "recording"
    var processDescribed = false
    /// Pipelines whose track is described and not yet named.
    var pipelineTracks: Set<Int> = []
    /// Each stage's demand as its counter last showed it.
    var demandShown: [NodeID: Int64] = [:]
    /// The rank last given to a track under each stage's track.
    var childRanks: [NodeID: Int] = [:]
    var lostDescribed = false

    init(sequence: PerfettoSequence) {
        self.sequence = sequence
        self.flows = CauseFlows(sequence: sequence.sibling())
    }

    /// Arrows from a cause that could not be drawn: the cause was written already, or
    /// is not drawn.
    var causesMissed: Int { flows.missed }

    func process(pid: Int, name: String) throws {
        processName = name
        self.pid = pid
        try describeProcess()
    }

    func recordingStarts(at origin: Int64) throws {
        try describeProcess()
    }

    /// Writes the events no arrow can reach any more (at the end, every waiting event).
    func endBatch(last: Bool) throws {
        if last { try flows.finish() } else { try flows.endBatch() }
    }

    func forget(_ ids: [NodeID]) {
        for id in ids {
            demandShown[id] = nil
            childRanks[id] = nil
        }
    }

    func finish(ending: String?, at time: Int64) throws -> WriterTotals {
        try describeProcess()
        if let ending {
            try emit(PerfettoEvent(.instant, track: PerfettoUUID.process, time: time, name: "recording ends",
                                   annotations: [("why", .string(ending))]))
        }
        return WriterTotals(traceEvents: sequence.eventCount + flows.eventCount, causeArrows: flows.arrows)
    }

    /// The process track, once: its pid and name; and the track of its pipelines.
    func describeProcess() throws {
        guard !processDescribed else { return }
        processDescribed = true
        var track = PerfettoTrack(uuid: PerfettoUUID.process)
        track.process = (pid, processName)
        try sequence.describe(track)
        // trace_processor orders the children of a process's own track itself (by name:
        // #10 before #2), ignoring their ranks; under a plain track it keeps the ranks.
        var pipelines = PerfettoTrack(uuid: PerfettoUUID.pipelines, parent: PerfettoUUID.process, name: "pipelines")
        pipelines.explicitChildren = true
        try sequence.describe(pipelines)
    }

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
    /// The parent of the pipelines' tracks.
    static let pipelines: UInt64 = 7
}
