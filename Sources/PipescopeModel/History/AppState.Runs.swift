import PipescopeGraph

/// One run of the program that has ended: what the inspector held when it went away,
/// kept when the program started again and the inspector attached to the new run.
public struct EarlierRun: Sendable {
    /// The program's name and pid in that run.
    public let name: String
    public let pid: Int32?
    /// When the inspector saw it end (its clock), and why the connection ended.
    public let endedAt: Int64?
    public let why: String
    /// Its history, graph and lanes, as they were at the end.
    var cursor: AppState.HistoryCursor
    var timeline: AppState.Timeline
}

extension AppState {
    /// The program's earlier runs, each its own section of history (`pipescope attach
    /// --wait`, or `r` after the program ended, attaches to the next run and keeps the
    /// ended one here). `g` and `[` at the start of a run step into the run before it;
    /// `]` past a run's end steps into the next one; `G` returns to the live run.
    ///
    /// While an earlier run is on screen, ``AppState/cursor`` and ``AppState/timeline``
    /// are that run's, and the live run's are parked here: its batches still fold into
    /// its own history, so nothing arriving meanwhile is lost.
    public struct Runs: Sendable {
        /// Ended runs, oldest first: at most ``limit`` of them, and together at most the
        /// history limit's events (beyond one run); the oldest is dropped first.
        public internal(set) var earlier: [EarlierRun] = []
        /// Which earlier run is on screen (an index into ``earlier``); nil: the live one.
        public internal(set) var viewing: Int?
        /// The live run's cursor, timeline and pipelines' activity while an earlier run is
        /// on screen.
        var parked: (cursor: HistoryCursor, timeline: Timeline, activity: PipelineActivity)?
        /// Runs kept: each holds up to the history limit's events.
        public static let limit = 8

        /// The runs, counting the live one: "run 2 of 3".
        public var count: Int { earlier.count + 1 }
        /// The number (1-based) of the run on screen.
        public var shown: Int { (viewing ?? earlier.count) + 1 }
    }

    /// Waits for the program to start again whenever it ends (`pipescope attach --wait`):
    /// the hint line says so once it has ended.
    public mutating func waitForNextRun() {
        session.waitingFor = session.targetName
    }

    /// Keeps the run that ended (its history, graph and lanes) as an earlier run, and
    /// starts the next one empty: the program started again and this inspector attached.
    mutating func startNewRun() {
        showRun(nil)
        guard cursor.log.end > cursor.log.start || !cursor.liveGraph.nodes.isEmpty else { return }
        var ended = cursor
        ended.goLive()
        runs.earlier.append(EarlierRun(name: session.targetName, pid: session.pid, endedAt: session.endedAt,
                                       why: session.endReason ?? "", cursor: ended, timeline: timeline))
        // Costs that do not grow with restarts: the earlier runs together keep at most
        // one history's worth of events (and at most ``Runs/limit`` runs), oldest out first.
        func events(_ run: EarlierRun) -> Int { run.cursor.log.end - run.cursor.log.start }
        while runs.earlier.count > Runs.limit
            || (runs.earlier.count > 1 && runs.earlier.reduce(0, { $0 + events($1) }) > cursor.log.limit) {
            runs.earlier.removeFirst()
        }
        var fresh = HistoryCursor()
        fresh.log.limit = cursor.log.limit
        fresh.log.spill = cursor.log.spill
        fresh.takeOver(from: cursor)
        cursor = fresh
        var lanes = Timeline()
        lanes.carryView(from: timeline)
        timeline = lanes
        table.activity = PipelineActivity()
    }

    /// Shows earlier run `index` (nil: the live one), parking or restoring the live
    /// run's cursor and timeline. The cursor of the run shown is not moved.
    mutating func showRun(_ index: Int?) {
        guard index != runs.viewing else { return }
        // Put the run on screen back where it belongs.
        if let viewing = runs.viewing {
            runs.earlier[viewing].cursor = cursor
            runs.earlier[viewing].timeline = timeline
        } else {
            runs.parked = (cursor, timeline, table.activity)
        }
        let view = timeline
        let shown = cursor
        if let index {
            cursor = runs.earlier[index].cursor
            timeline = runs.earlier[index].timeline
            // An ended run has no rates: its pipelines' rows read as idle.
            table.activity = PipelineActivity()
        } else if let parked = runs.parked {
            cursor = parked.cursor
            timeline = parked.timeline
            table.activity = parked.activity
            runs.parked = nil
        }
        timeline.carryView(from: view)
        cursor.takeOver(from: shown)
        runs.viewing = index
    }

    /// Folds a live batch into the live run, on screen or parked.
    mutating func appendToLiveRun(_ batch: EventBatch) {
        guard runs.viewing != nil, var parked = runs.parked else {
            cursor.append(batch)
            cursor.noteLastEvent(batch.events)
            timeline.recordLanes(batch.events, liveGraph: cursor.liveGraph)
            timeline.follow(cursor.log)
            table.activity.record(batch.events, in: cursor.liveGraph)
            return
        }
        runs.parked = nil
        parked.cursor.append(batch)
        parked.cursor.noteLastEvent(batch.events)
        parked.timeline.recordLanes(batch.events, liveGraph: parked.cursor.liveGraph)
        parked.timeline.follow(parked.cursor.log)
        parked.activity.record(batch.events, in: parked.cursor.liveGraph)
        runs.parked = parked
    }

    /// Moves through history by `delta` events, across runs: back past a run's first
    /// event into the end of the run before it, forward past an earlier run's end into
    /// the start of the next.
    mutating func moveThroughRuns(by delta: Int) {
        if runs.viewing == nil, let stages = scopedStages() {
            moveThroughPipeline(by: delta, stages: stages)
            return
        }
        let at = cursor.position ?? cursor.log.end
        if delta < 0, at <= cursor.log.start, let previous = previousRun {
            showRun(previous)
            cursor.pin(at: cursor.log.end)
            return
        }
        guard runs.viewing != nil else {
            cursor.move(by: delta)
            return
        }
        // An earlier run shows its last event's graph at its end; past it is the next run.
        if at + delta > cursor.log.end {
            cursor.goLive()
            settleRun()
        } else {
            cursor.pin(at: at + delta)
        }
    }

    /// `g`: the oldest event kept of the run on screen; pressed there, the oldest of the
    /// run before it.
    mutating func moveToRunStart() {
        if (cursor.position ?? cursor.log.end) <= cursor.log.start, let previous = previousRun {
            showRun(previous)
            cursor.pin(at: cursor.log.start)
        } else if runs.viewing == nil {
            cursor.move(to: cursor.log.start)
        } else {
            cursor.pin(at: cursor.log.start)
        }
    }

    /// `G`: the live run, following live events.
    mutating func returnToLive() {
        showRun(nil)
        cursor.goLive()
    }

    /// An earlier run has no "live": a cursor that moved past its end goes on to the
    /// start of the next run.
    mutating func settleRun() {
        guard let viewing = runs.viewing, cursor.position == nil else { return }
        let next = viewing + 1 < runs.earlier.count ? viewing + 1 : nil
        showRun(next)
        cursor.pin(at: cursor.log.start)
    }

    private var previousRun: Int? {
        if let viewing = runs.viewing { return viewing > 0 ? viewing - 1 : nil }
        return runs.earlier.isEmpty ? nil : runs.earlier.count - 1
    }
}
