import DequeModule
import PipescopeGraph

/// Every event received, and the graph as it was after any of them.
///
/// History is append-only; moving the cursor never rewrites it. A checkpoint (a copy of
/// the graph) is kept every ``stride(for:)`` events (512, or 32 a stage for larger graphs),
/// so the graph at any position is a checkpoint plus at most that many events folded:
/// jumping anywhere costs the same.
/// Past ``limit`` events the oldest leave memory. With a ``spill`` they go to disk
/// (``HistorySpill``) and stay reachable through the same API, from the first event on;
/// checkpoints there are thinned to one every ``spilledSpan`` events or so and go to
/// disk too (``SpilledCheckpoints``), so memory does not grow with the history while a
/// jump reads one back and folds at most that many events (about 6 ms at the fold's 8 M
/// events a second, plus reading them). Without a spill, or past its disk budget,
/// the oldest are evicted: folded into the graph before the first kept event
/// (``start``); node summaries live on in the checkpoints' graphs.
///
/// ```swift
/// var history = History()
/// history.spill = HistorySpill.Options.fromEnvironment()
/// history.append(batch, folding: &live)
/// let first = history.graph(at: history.start + 1)   // the first event, however many came since
/// ```
public struct History: Sendable {
    public static let checkpointStride = 512
    /// The most recent causes from probes' snapshots kept across resynchronisations.
    public static let earlierLimit = 16_384

    /// The graph before the first kept event.
    var base = Graph()
    /// The events in memory, 40 bytes each (see ``HistoryEntry``): from ``memoryStart``.
    var entries = Deque<HistoryEntry>()
    /// Where events that leave memory go, when set (nil: they are evicted). Set it
    /// before the first event; ``reset(to:recent:)`` keeps it and starts new files.
    public var spill: HistorySpill.Options?
    /// The spill files, made when the first events leave memory.
    var spilled: HistorySpill?
    /// Why the spill could not be written, when it could not (history then starts later).
    public internal(set) var spillFailure: String?
    /// Absolute position of `entries[0]`: events before it are on disk (or evicted).
    public internal(set) var memoryStart = 0
    /// The room `entries` has (see ``makeRoom(for:)``).
    private var entryCapacity = 0
    /// The threads the events happened on, each name once.
    var threads = ThreadNames()
    /// Events' numbers: from `position` on, each event's number is one more than the
    /// one before (`id` 0: unnumbered), until the next run. A new run starts where
    /// numbers jump (events the probe dropped or skipped, a recording without numbers):
    /// at most one per batch, so an entry needs no number of its own.
    var idRuns: [(position: Int, id: EventID)] = []
    /// The probe's recent caused events as of the last snapshot (``GraphSnapshot/recent``),
    /// in id order: causes from before this history began.
    public private(set) var earlier: [StageEvent] = []
    /// The text of the events that have one, by absolute index, in order.
    var texts = Deque<(index: Int, text: String)>()
    /// The first reachable position: events evicted so far (without a spill, those that
    /// left memory; with one, those past its disk budget).
    public internal(set) var start = 0
    /// Checkpoints in memory (the graph at each position), in order, all after those on disk.
    var checkpoints: [(position: Int, graph: Graph)] = []
    /// The pauses the batches said (``Graph/pauses``), all of them: the graph at any
    /// position gets them (waits at a moment leave out the pauses before it).
    var pauses = PauseLog()
    /// Where the checkpoints among the events on disk are (``SpilledCheckpoints``), in
    /// order: their graphs are in the spill's files, not here.
    var spilledCheckpoints: [SpilledCheckpoints.Record] = []
    /// Locations and code places learnt after checkpoints that hold their stages went to
    /// disk (rare: they come a batch or two after their stage), applied to those
    /// checkpoints when one is read back (see ``rememberLate(_:_:)``).
    var lateFixes: [LateFix] = []
    /// The newest stage any checkpoint on disk holds (ids only grow): a location learnt
    /// for a newer stage cannot concern them.
    var newestStageOnDisk: NodeID = 0
    /// The descriptions of the stages subscribed among the events in memory; those of the
    /// events on disk are on disk (``HistorySpill/descriptions``).
    var infos: [NodeID: NodeInfo] = [:]
    public var limit = 100_000

    /// Checkpoints among the spilled events are at most about this far apart (see
    /// ``stride(for:)`` for those in memory): a jump there folds at most this many.
    public static let spilledSpan = 50_000
    /// ``spilledSpan`` for this history (tests make it shorter, to have many checkpoints
    /// on disk in few events).
    var diskCheckpointSpan = History.spilledSpan

    public init() {}

    /// Bytes the history's spill uses on disk (0 without one).
    public var spilledBytes: Int64 { spilled?.bytesUsed ?? 0 }

    /// Positions that have a checkpoint: a jump folds at most ``stride(for:)`` events
    /// from the one before it.
    public var checkpointPositions: [Int] { spilledCheckpoints.map(\.position) + checkpoints.map(\.position) }

    /// Stage descriptions kept to replay subscribe events still in the history: they go
    /// with their subscribe event, so a long session does not keep every stage it saw.
    public var nodeInfoCount: Int { infos.count + (spilled?.descriptions.count ?? 0) }

    /// What stage `id` was, while its subscribe event is still kept: the event log names
    /// a stage the graph has pruned with it.
    public func info(of id: NodeID) -> NodeInfo? {
        if let info = infos[id] { return info }
        guard let spilled, let offset = spilled.descriptions.offset(of: id) else { return nil }
        return NodeInfoBytes.decode(spilled.bytes(at: offset))
    }

    /// Absolute position after the newest event.
    public var end: Int { memoryStart + entries.count }

    /// Starts over from a snapshot (attach, reconnect); `recent` is the probe's recent
    /// caused events (``GraphSnapshot/recent``), for chains that start before it.
    public mutating func reset(to graph: Graph, recent: [StageEvent] = []) {
        base = graph.checkpoint
        pauses = graph.pauses
        threads = ThreadNames()
        idRuns.removeAll()
        earlier = recent.filter { $0.id != 0 }.sorted { $0.id < $1.id }
        entries.removeAll()
        entryCapacity = 0
        texts.removeAll()
        checkpoints.removeAll()
        spilledCheckpoints.removeAll()
        lateFixes.removeAll()
        newestStageOnDisk = 0
        start = 0
        memoryStart = 0
        infos.removeAll()
        // New files: a copy of the history before the reset (an earlier run) keeps its own.
        spilled = nil
        spillFailure = nil
    }

    /// Continues from a snapshot after a gap (the probe skipped this inspector because it
    /// fell behind): history before the gap stays, and positions after it start from
    /// `graph`. The snapshot's `recent` caused events join ``earlier``: they fill the gap
    /// for chains.
    public mutating func resync(to graph: Graph, recent: [StageEvent] = []) {
        // The recent causes from before the history began and from the gap, each once,
        // at most ``earlierLimit`` of them (the newest).
        var byID: [EventID: StageEvent] = [:]
        for event in earlier + recent where event.id != 0 && position(ofEvent: event.id) == nil {
            byID[event.id] = event
        }
        earlier = Array(byID.values.sorted { $0.id < $1.id }.suffix(Self.earlierLimit))
        if checkpoints.last?.position == end { checkpoints.removeLast() }
        if end == start {
            base = graph.checkpoint
        } else {
            checkpoints.append((end, graph.checkpoint))
        }
    }

    /// Folds `batch` into `graph` (the live graph) and appends its events, one at a
    /// time, with the same fold the probe uses. A checkpoint is taken every
    /// ``stride(for:)`` events, so a batch of any size (65,536 events in a burst) still
    /// leaves one that often and a cursor jump never folds more than that.
    public mutating func append(_ batch: EventBatch, folding graph: inout Graph) {
        for info in batch.nodes { infos[info.id] = info }
        // Probes of this version put each value's text on its event. Older recordings
        // carry one text per stage per batch instead (`lastValues`): it belongs to the
        // stage's last value event in the batch, so it goes on that event, and the detail
        // pane lists recent values with their times and texts.
        var textAt: [Int: String] = [:]
        let lastValues = batch.trailer.lastValues
        if !lastValues.isEmpty {
            var named = Set<NodeID>()
            for i in batch.events.indices.reversed() where batch.events[i].kind == .value {
                let node = batch.events[i].node
                if named.insert(node).inserted, batch.events[i].value.isEmpty,
                   let text = lastValues[node] { textAt[i] = text }
                if named.count == lastValues.count { break }
            }
        }
        makeRoom(for: batch.events.count)
        var stride = self.stride(for: graph)
        // Numbers count back from the trailer's sequence, as on the wire, for a batch that
        // did not travel (an in-process probe's); 0 when it has none.
        let count = UInt64(batch.events.count)
        let sequence = batch.trailer.sequence
        let firstID: EventID = sequence >= count && sequence > 0 ? sequence - count + 1 : 0
        for (i, original) in batch.events.enumerated() {
            var event = original
            if let text = textAt[i] { event.text = text }
            if event.id == 0, firstID != 0 { event.id = firstID + UInt64(i) }
            let thread = event.kind.payload.caused ? threads.index(of: event.thread) : 0
            let entry = HistoryEntry(event, thread: thread)
            if idRuns.isEmpty || id(at: end + 1) != event.id { idRuns.append((end + 1, event.id)) }
            if entry.hasText, !entry.textInline { texts.append((end, event.text)) }
            entries.append(entry)
            if event.kind == .subscribe, let info = info(of: event.node) { graph.insert(info) }
            graph.apply(event)
            if end - (checkpoints.last?.position ?? start) >= stride {
                checkpoints.append((end, graph.checkpoint))
                stride = self.stride(for: graph)
            }
        }
        // A location found after its stage was sent belongs to the stage from its start:
        // the infos a jump re-folds from, and the graphs it starts at (the base and the
        // checkpoints), get it too.
        if !batch.locations.isEmpty {
            for l in batch.locations where infos[l.node] != nil {
                infos[l.node]?.location = l.location
                infos[l.node]?.frames = l.frames
            }
            for l in batch.locations where infos[l.node] == nil && spilled != nil {
                redescribe(l.node) { $0.location = l.location; $0.frames = l.frames }
            }
            base.locate(batch.locations)
            for i in checkpoints.indices { checkpoints[i].graph.locate(batch.locations) }
            rememberLate(batch.locations, [])
        }
        // So does the place of its code.
        if !batch.codes.isEmpty {
            for c in batch.codes where infos[c.node] != nil {
                infos[c.node]?.code = c.code
                infos[c.node]?.builtBy = c.builtBy
            }
            for c in batch.codes where infos[c.node] == nil && spilled != nil {
                redescribe(c.node) { $0.code = c.code; $0.builtBy = c.builtBy }
            }
            base.place(batch.codes)
            for i in checkpoints.indices { checkpoints[i].graph.place(batch.codes) }
            rememberLate([], batch.codes)
        }
        graph.finish(batch)
        pauses = graph.pauses
        evict()
    }

    /// Events between checkpoints: 512, or ``eventsPerStage`` per stage for larger
    /// graphs. A checkpoint is a copy of the graph: its table, about 40 bytes a stage
    /// (a stage is one reference, see ``NodeSummary``), and then every stage the live
    /// graph changes after it, which the fold copies (about 150 bytes each, its identity
    /// still shared). A jump folds at most that many events (50,000 at 1,575 stages:
    /// about 6 ms at the fold's 8 M events a second).
    /// At most half the history's ``limit`` apart, so a jump never folds more than that.
    public func stride(for graph: Graph) -> Int {
        max(Self.checkpointStride, min(graph.nodes.count * Self.eventsPerStage, limit / 2))
    }

    /// Events between checkpoints per stage of the graph (see ``stride(for:)``).
    public static let eventsPerStage = 32

    /// The `count` events up to and including `position`'s, oldest first, optionally only
    /// those of one stage, of some stages (`among`), and of some kinds (looking back at
    /// most `scan` events).
    public func events(endingAt position: Int, count: Int, node: NodeID? = nil, among: Set<NodeID>? = nil,
                       kinds: Set<EventKind>? = nil, scan: Int = 5_000) -> [(position: Int, event: StageEvent)] {
        var found: [(Int, StageEvent)] = []
        var p = min(position, end)
        let floor = max(start, p - scan)
        let filtered = node != nil || among != nil || kinds != nil
        while p > start, found.count < count, p > floor || !filtered {
            guard let entry = entry(at: p - 1) else { break }
            if node == nil || entry.node == node, among?.contains(entry.node) ?? true, kinds?.contains(entry.kind) ?? true {
                found.append((p, event(entry, index: p - 1)))
            }
            p -= 1
        }
        return found.reversed()
    }

    /// The position of the first kept event at or after `time` (``end`` when none: the
    /// newest, where the cursor goes live), by
    /// binary search: events are kept in the order they came, their times in order.
    public func position(atOrAfter time: Int64) -> Int {
        var low = start, high = end
        while low < high {
            let mid = (low + high) / 2
            if (entry(at: mid)?.time ?? .max) < time { low = mid + 1 } else { high = mid }
        }
        return min(low + 1, end)
    }

    /// The position of the last kept event at or before `time` (``start`` when none).
    public func position(atOrBefore time: Int64) -> Int {
        var low = start, high = end
        while low < high {
            let mid = (low + high) / 2
            if (entry(at: mid)?.time ?? .max) <= time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The event at `position` (the one the cursor has just applied).
    public func event(at position: Int) -> StageEvent? {
        entry(at: position - 1).map { event($0, index: position - 1) }
    }

    /// The entry at absolute `index` (position `index + 1`), in memory or on disk; nil
    /// when it is not kept.
    func entry(at index: Int) -> HistoryEntry? {
        guard index >= start, index < end else { return nil }
        if index >= memoryStart { return entries[index - memoryStart] }
        return spilled?.entry(index)
    }

    /// Calls `body` with each entry at absolute indices `range` (all kept), in order:
    /// those on disk read a span at a time.
    func forEachEntry(in range: Range<Int>, _ body: (Int, HistoryEntry) -> Void) {
        var index = range.lowerBound
        if index < memoryStart, let spilled {
            let chunk = 65_536
            while index < min(memoryStart, range.upperBound) {
                let upTo = min(index + chunk, memoryStart, range.upperBound)
                for (k, entry) in spilled.entries(index..<upTo).enumerated() { body(index + k, entry) }
                index = upTo
            }
        }
        while index < range.upperBound {
            body(index, entries[index - memoryStart])
            index += 1
        }
    }

    /// Bytes the history holds per event on average: entries and texts (their
    /// characters counted), not the checkpoints.
    public var bytesPerEvent: Double {
        guard !entries.isEmpty else { return 0 }
        let textBytes = texts.reduce(0) { $0 + 24 + $1.text.utf8.count }
        return Double(entries.count * MemoryLayout<HistoryEntry>.stride + textBytes) / Double(entries.count)
    }

    func event(_ entry: HistoryEntry, index: Int) -> StageEvent {
        if index < memoryStart, entry.hasText, !entry.textInline {
            let text = spilled?.text(at: entry.spilledTextOffset) ?? ""
            return entry.unspilled.event(value: EventValue(text: text), thread: threads.name(entry.thread),
                                         id: id(at: index + 1))
        }
        return entry.event(value: entry.inlineValue ?? (entry.hasText ? EventValue(text: text(at: index)) : .none),
                    thread: threads.name(entry.thread),
                    id: id(at: index + 1))
    }

    /// The graph after the first `position` events (clamped to what is kept): the
    /// checkpoint at or before it, and the events after that folded.
    public func graph(at position: Int) -> Graph {
        let target = min(max(position, start), end)
        var graph = base
        var from = start
        if let i = checkpointIndex(atOrBefore: target) {
            graph = checkpoints[i].graph
            from = checkpoints[i].position
        } else if let onDisk = spilledCheckpoint(atOrBefore: target) {
            (from, graph) = onDisk
        }
        forEachEntry(in: from..<target) { index, entry in
            let event = self.event(entry, index: index)
            if event.kind == .subscribe, let info = info(of: event.node) { graph.insert(info) }
            graph.apply(event)
        }
        // Every pause known: a graph of the past asks about its own time, before later ones.
        graph.pauses = pauses
        return graph
    }

    /// The last checkpoint at or before `position`, by binary search (they are in order).
    func checkpointIndex(atOrBefore position: Int) -> Int? {
        var low = 0, high = checkpoints.count
        while low < high {
            let mid = (low + high) / 2
            if checkpoints[mid].position <= position { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? low - 1 : nil
    }

    /// Grows `entries` for `count` more events. A deque grows by half again when full,
    /// so a history that reached its limit would hold up to half as much room again
    /// unused (20 bytes an event kept); instead, growth stops at what eviction lets it
    /// hold: ``limit``, its sixteenth of slack, and the batch that crosses it.
    private mutating func makeRoom(for count: Int) {
        let needed = entries.count + count
        guard needed > entryCapacity else { return }
        let most = limit + limit / 16 + count
        entryCapacity = max(needed, min(max(1_024, entryCapacity + entryCapacity / 2), most))
        entries.reserveCapacity(entryCapacity)
    }

}

extension Graph {
    /// A copy to keep as a checkpoint: it records no changes of its own.
    var checkpoint: Graph {
        var copy = self
        copy.stopRecordingChanges()
        return copy
    }
}
