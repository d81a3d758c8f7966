import PipescopeGraph

/// Which track (thread id) each stage's slice goes on, so that every track's slices nest
/// properly: trace viewers nest slices by time, and drop a slice that starts inside
/// another and ends after it (Perfetto counts it as
/// `slice_drop_overlapping_complete_event`).
///
/// A pipeline gets its own track: its root at depth 0, each stage nested under its
/// downstream. Stages live side by side when an operator has several upstreams at once
/// (merge, combineLatest, zip, flatMap's inners): the first nests under it, the others
/// go on extra tracks of the same pipeline ("branch" tracks, reused once free), never on
/// top of a sibling.
///
/// Each track keeps a stack: the stages nested on it, innermost last. A stage joins its
/// downstream's track only when the downstream is the innermost live stage there. Its
/// visible slice starts after its downstream's (1 ns later when they share a
/// nanosecond) and ends no later than any ended stage below it: when a stage outlives
/// its downstream (a cancel reaches it a few nanoseconds later), its slice is cut at
/// the downstream's end, and the export says so in its args.
struct LaneBook {
    /// Where a stage's slice is drawn.
    struct Placement {
        var pipeline: Int
        var lane: Int
        /// Index in the lane's stack (stable: stacks change only at the top).
        var depth: Int
        var tid: Int
    }

    fileprivate struct Entry {
        var id: NodeID
        var visibleStart: Int64
        /// Set when the stage ended; nil while live.
        var visibleEnd: Int64?
    }

    struct Pipeline {
        var ordinal: Int
        var root: NodeID
        /// The subscriber of the root: "Sink", "Assign".
        var subscriber: String
        /// Operator names along the main track, downstream first: the first few, and
        /// the most upstream one last.
        var chain: [String] = []
        /// How many stages the main track's first path has (more than `chain` names
        /// when it is long).
        var chainLength = 0
        fileprivate var lanes: [[Entry]] = [[]]
        /// Stages placed in it that have not ended.
        var live = 0
    }

    /// The most operators a track name lists.
    static let chainLimit = 6
    /// Lanes of one pipeline with their own thread ids; more spill into a shared range.
    static let lanesPerPipeline = 100

    private(set) var pipelines: [Int: Pipeline] = [:]
    private(set) var placements: [NodeID: Placement] = [:]
    private var nextPipeline = 1
    /// Pipelines whose last live stage ended since ``takeEnded()`` was last called.
    private var emptied: [Int] = []

    /// Places a new stage starting at `start` (already no earlier than the recording's
    /// start) under `parent`, and returns where it goes and when its slice starts.
    mutating func place(_ id: NodeID, parent: NodeID?, start: Int64, operatorName: String,
                        subscriber: String) -> (Placement, visibleStart: Int64) {
        if let parent, let p = placements[parent], var pipeline = pipelines[p.pipeline] {
            let lane = pipeline.lanes[p.lane]
            let parentEntry = lane[p.depth]
            if p.depth == lane.count - 1, parentEntry.visibleEnd == nil {
                let visibleStart = max(start, parentEntry.visibleStart + 1)
                if visibleStart < ceiling(lane, below: lane.count) {
                    pipeline.lanes[p.lane].append(Entry(id: id, visibleStart: visibleStart))
                    if p.lane == 0 { pipeline.extendChain(operatorName, at: p.depth + 1) }
                    pipeline.live += 1
                    pipelines[p.pipeline] = pipeline
                    let placement = Placement(pipeline: p.pipeline, lane: p.lane, depth: p.depth + 1, tid: p.tid)
                    placements[id] = placement
                    return (placement, visibleStart)
                }
            }
            // A sibling is live on the downstream's track: a branch track of the pipeline.
            let index = pipeline.lanes.firstIndex { $0.isEmpty } ?? pipeline.lanes.count
            if index == pipeline.lanes.count { pipeline.lanes.append([]) }
            pipeline.lanes[index].append(Entry(id: id, visibleStart: start))
            pipeline.live += 1
            pipelines[p.pipeline] = pipeline
            let placement = Placement(pipeline: p.pipeline, lane: index, depth: 0,
                                      tid: Self.tid(pipeline: p.pipeline, lane: index))
            placements[id] = placement
            return (placement, start)
        }
        // A root, or a stage whose downstream is not drawn: a pipeline of its own.
        let ordinal = nextPipeline
        nextPipeline += 1
        var pipeline = Pipeline(ordinal: ordinal, root: id, subscriber: subscriber)
        pipeline.lanes[0].append(Entry(id: id, visibleStart: start))
        pipeline.extendChain(operatorName, at: 0)
        pipeline.live = 1
        pipelines[ordinal] = pipeline
        let placement = Placement(pipeline: ordinal, lane: 0, depth: 0, tid: Self.tid(pipeline: ordinal, lane: 0))
        placements[id] = placement
        return (placement, start)
    }

    /// Ends a stage's slice at `end` (or earlier, cut at an ended stage below it) and
    /// returns the visible end. Stages that ended are taken off the top of their track.
    mutating func end(_ id: NodeID, at end: Int64) -> Int64 {
        guard let p = placements[id], var pipeline = pipelines[p.pipeline] else { return end }
        var lane = pipeline.lanes[p.lane]
        let start = lane[p.depth].visibleStart
        let visibleEnd = max(start, min(end, ceiling(lane, below: p.depth)))
        lane[p.depth].visibleEnd = visibleEnd
        while let top = lane.last, top.visibleEnd != nil {
            lane.removeLast()
            placements[top.id] = nil
        }
        pipeline.lanes[p.lane] = lane
        pipeline.live -= 1
        if pipeline.live == 0 { emptied.append(p.pipeline) }
        pipelines[p.pipeline] = pipeline
        return visibleEnd
    }

    /// Pipelines none of whose stages is live any more, oldest first: their tracks can be
    /// named and forgotten. (Every stage of such a pipeline has ended, so every one of
    /// its tracks is empty and no new stage can join it.)
    mutating func takeEnded() -> [Pipeline] {
        let ended = emptied.sorted().compactMap { ordinal -> Pipeline? in
            guard let pipeline = pipelines[ordinal], pipeline.live == 0 else { return nil }
            pipelines[ordinal] = nil
            return pipeline
        }
        emptied.removeAll()
        return ended
    }

    /// Every pipeline still known, oldest first (at the end of the recording).
    mutating func takeAll() -> [Pipeline] {
        let all = pipelines.values.sorted { $0.ordinal < $1.ordinal }
        pipelines = [:]
        placements = [:]
        emptied = []
        return all
    }

    /// The thread id of a pipeline's lane.
    static func tid(pipeline: Int, lane: Int) -> Int {
        lane < lanesPerPipeline ? pipeline * lanesPerPipeline + lane : spillTid(pipeline: pipeline, lane: lane)
    }

    private static func spillTid(pipeline: Int, lane: Int) -> Int {
        // Over a hundred upstreams live at once under one pipeline: rare; a shared range.
        2_000_000_000 + (pipeline * 7919 + lane) % 1_000_000_000
    }

    /// The earliest end of the ended stages under position `depth`: nothing on top of
    /// them may end later.
    private func ceiling(_ lane: [Entry], below depth: Int) -> Int64 {
        var ceiling = Int64.max
        for entry in lane[..<min(depth, lane.count)] {
            if let end = entry.visibleEnd { ceiling = min(ceiling, end) }
        }
        return ceiling
    }
}

extension LaneBook.Pipeline {
    /// Lanes this pipeline has used: its main track and its branch tracks.
    var laneCount: Int { lanes.count }

    /// Adds the operator of a stage placed at `depth` of the main track, when it
    /// continues the first path: past the limit it replaces the last name, so the chain
    /// always ends with the most upstream stage (the source).
    fileprivate mutating func extendChain(_ name: String, at depth: Int) {
        guard depth == chainLength else { return }
        chainLength += 1
        if chain.count < LaneBook.chainLimit { chain.append(name) } else { chain[chain.count - 1] = name }
    }
}
