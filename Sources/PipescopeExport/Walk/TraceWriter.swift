import PipescopeGraph
import PipescopeModel

/// One trace format's side of an export: how it draws what ``TraceWalk`` finds.
///
/// The walk folds the recording into a ``Graph`` and decides what happened, when, and on
/// which stage; a writer turns each of those into its format's events, and nothing
/// else: it never reads the recording, never folds, never decides what is drawn. A new
/// format is a folder of its own (its writer, and the ``TraceOutput`` that gives the walk
/// its file) and a ``TraceFormat`` case.
///
/// The walk calls, in order: ``process(pid:name:)`` when the program is known (it may
/// never be); ``recordingStarts(at:)`` once; for each stage it draws,
/// ``openStage(_:graph:)``, then its marks, then ``closeStage(_:graph:)`` once;
/// ``endBatch(last:)`` after each batch and once more, `last`, at the end; and
/// ``finish(ending:at:)`` last.
///
/// ```swift
/// let walk = TraceWalk(writer: ChromeJSONWriter(sink: TraceEventCollector()))
/// for message in messages { try walk.consume(message) }
/// let summary = try walk.finish()
/// ```
protocol TraceWriter: AnyObject {
    /// Where a stage is drawn, as the writer wants it back with each of the stage's marks:
    /// the walk keeps it while the stage is open and, once closed, while its graph holds it.
    associatedtype Track

    /// Whether the writer reads the events' ids (``StageEvent/id``, for arrows from
    /// causes): the walk numbers each batch's events (``EventBatch/numbered()``) then.
    static var usesEventIDs: Bool { get }

    /// The recorded program: its pid (1 when unknown) and name.
    func process(pid: Int, name: String) throws
    /// Trace time 0: the recording's first event (or, with none, its snapshot's newest moment).
    func recordingStarts(at origin: Int64) throws

    /// A stage's life starts being drawn; returns its track.
    func openStage(_ stage: StageOpening<Track>, graph: Graph) throws -> Track
    /// A stage's life ends (or the recording does, or a gap hid its end).
    func closeStage(_ stage: StageClosing<Track>, graph: Graph) throws

    /// A value delivered to a stage, or to a stage mirroring it (`mirroredFrom`); `live`:
    /// the stage had not ended.
    func value(_ event: StageEvent, on id: NodeID, track: Track, live: Bool, mirroredFrom: NodeID?) throws
    /// A request or a returned demand on an open stage; `sharers`: the stages a request
    /// also goes to (they share its subscription).
    func demand(_ event: StageEvent, track: Track, sharers: [NodeID]) throws
    /// The outstanding demand of these stages may have changed (each open).
    func outstandingChanged(_ ids: [NodeID], at time: Int64, graph: inout Graph) throws
    /// A completion on an open stage (`mirrored`: the stage mirrors the event's).
    func completion(_ event: StageEvent, on id: NodeID, track: Track, mirrored: Bool) throws
    /// A cancel's wave, or its continuation: an instant on the stage that cancelled (when
    /// drawn) with an arrow to each reached stage's instant.
    func cancelWave(_ wave: CancelDrawing<Track>) throws
    /// A lint found on a drawn stage, at `time`.
    func lint(_ lint: Lint, track: Track, at time: Int64) throws
    /// An owner (a CancellableBag) was released.
    func ownerReleased(_ event: StageEvent) throws

    /// The events lost so far: dropped by the probe, skipped by the recorder.
    func lost(dropped: UInt64, skipped: UInt64, at time: Int64) throws
    /// The recorder skipped `count` events up to `time` (a snapshot came in their place).
    func skipped(_ count: UInt64, at time: Int64) throws
    /// Pipelines that are over (or, at the end, every pipeline): their names are known.
    func pipelinesEnded(_ pipelines: [LaneBook.Pipeline], graph: Graph) throws

    /// A batch is folded (`last`: the recording is over).
    func endBatch(last: Bool) throws
    /// Stages the walk has forgotten: none will be drawn again.
    func forget(_ ids: [NodeID])
    /// Ends the trace: `ending`, why the recording stops here when it was cut short, at `time`.
    func finish(ending: String?, at time: Int64) throws -> WriterTotals
}

/// A stage whose life a writer starts to draw.
struct StageOpening<Track> {
    var node: NodeSummary
    /// Where its life is shown to start (nanoseconds since 1970): when it subscribed, but
    /// no earlier than the recording, nor than the end of a gap it subscribed in.
    var from: Int64
    var placement: LaneBook.Placement
    /// The track of its downstream, when that is drawn.
    var downstream: Track?
}

/// A stage the walk draws, while it is open.
struct OpenStage<Track> {
    /// When it subscribed, and where its life is shown to start (``StageOpening/from``).
    var subscribed: Int64
    var from: Int64
    /// Where a slice nested on a shared track starts: `from`, or just after its
    /// downstream's start (``LaneBook``).
    var visibleStart: Int64
    var track: Track
    /// Values it had received when the recording started; nil if it subscribed after.
    var valuesBefore: Int?
    /// Why it is shown to start later than it subscribed, if it is.
    var startNote: String?
}

/// A stage whose life a writer ends.
struct StageClosing<Track> {
    var id: NodeID
    var stage: OpenStage<Track>
    /// Its end, and where a nested slice is cut (no later than an ended stage below it).
    var end: Int64
    var visibleEnd: Int64
    /// The recording ended with the stage still live.
    var liveAtEnd: Bool
    /// Why the end is not the stage's own (events skipped, …).
    var note: String?
}

/// A cancel wave to draw (``CancelWaves``).
struct CancelDrawing<Track> {
    var wave: CancelWaves<Track>.Wave
    /// "cancelled", "cancels upstream", or "cancel (continued)" for stages that joined later.
    var label: String
    var continued: Bool
    /// The reached stages that are drawn (each with its track), downstream first.
    var reached: [(point: CancelWaves<Track>.Point, track: Track)]
}

/// What a writer wrote, besides what the walk counts.
struct WriterTotals {
    /// Trace events (or packets of events) written, metadata included.
    var traceEvents: Int
    /// Arrows the writer drew of its own accord (from causes).
    var causeArrows = 0
}
