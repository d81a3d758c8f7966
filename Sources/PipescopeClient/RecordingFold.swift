import PipescopeGraph
import PipescopeModel

/// The graph a recording makes, folded one message at a time as it is read: at its end,
/// or as it was right after one event (`replay --print/--json --at K`). Nothing but the
/// graph is kept, so a recording of any size is printed in the memory its graph takes
/// (``read(path:upTo:)`` streams the file; ``Recording/graph(upTo:)`` folds messages
/// already read the same way).
///
/// After event K, the file is still read to its end, without folding: where a stage was
/// made and its code are learnt a batch or two after the stage, and are the stage's, not
/// a moment's; and the recording's end (complete, cut, damaged) is said as for the whole.
///
/// ```swift
/// let fold = try RecordingFold.read(path: "app.pipescope", upTo: 2_494)
/// if let event = fold.event { linter.lints(fold.graph, now: event.time) }
/// else { print(fold.eventRange ?? 0...0) }
/// ```
public struct RecordingFold {
    /// The event to stop at (its number); nil: the recording's end.
    public let upTo: EventID?
    /// The graph: at the end, or right after ``event``.
    public private(set) var graph = Graph()
    /// The event numbered ``upTo``, once folded; nil before (or when there is none).
    public private(set) var event: StageEvent?
    /// The numbers of the first and last events read; nil when none was.
    public var eventRange: ClosedRange<EventID>? {
        guard let first, let last, first <= last else { return nil }
        return first...last
    }
    /// What was read, counted as ``Recording/read(path:)`` counts it (its `messages` stay
    /// empty): who the program was, snapshots, stages, events, and how the file ends.
    public private(set) var recording = Recording()
    private var first: EventID?
    private var last: EventID?

    public init(upTo: EventID? = nil) { self.upTo = upTo }

    /// Reads the recording at `path` to its end, folding its messages (up to event
    /// `upTo`, when given). Throws a ``Recording/ReadError`` as ``Recording/read(path:)``
    /// does; a recording cut off or damaged after some messages is folded up to there.
    /// `follow`, `pollSeconds`, `waiting`: as ``Recording/read(path:follow:pollSeconds:waiting:)``
    /// (a recording still being written is read until its writer lets go of it).
    public static func read(path: String, upTo: EventID? = nil, follow: Bool = false, pollSeconds: Double = 0.05,
                            waiting: () -> Void = {}) throws -> RecordingFold {
        var fold = RecordingFold(upTo: upTo)
        var recording = Recording()
        try recording.read(path: path, follow: follow, pollSeconds: pollSeconds, waiting: waiting) { fold.take($0) }
        fold.recording = recording
        return fold
    }

    /// Folds one message a replay applies (a snapshot, a batch; others are skipped).
    public mutating func take(_ message: Message) {
        switch message {
        case .snapshot(let s):
            if upTo == nil || event == nil { graph.load(s) }
        case .batch(let b):
            if first == nil, let id = b.events.first?.id { first = id }
            if let id = b.events.last?.id { last = id }
            guard let upTo else { return graph.fold(b) }
            if event == nil, (b.events.last?.id ?? 0) <= upTo {
                graph.fold(b)
                if let last = b.events.last, last.id == upTo { event = last }
                return
            }
            if event == nil {
                b.forEachEvent { e, newStage in
                    guard event == nil, e.id <= upTo else { return }
                    if let newStage { graph.insert(newStage) }
                    graph.apply(e)
                    if e.id == upTo { event = e }
                }
            }
            // Where a stage was made and its code, learnt in this batch or a later one.
            graph.locate(b.locations)
            graph.place(b.codes)
        default:
            break
        }
    }
}
