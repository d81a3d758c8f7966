import DequeModule
import PipescopeGraph

/// Every event received, and the graph as it was after any of them.
///
/// History is append-only; moving the cursor never rewrites it. A checkpoint (a copy of
/// the graph) is kept every ``stride(for:)`` events (512, or 32 a stage for larger graphs),
/// so the graph at any position is a checkpoint plus at most that many events folded:
/// jumping anywhere costs the same.
/// Past ``limit`` events the oldest are evicted, folded into the graph before the first
/// kept event; node summaries live on in the checkpoints' graphs.
public struct History: Sendable {
    public static let checkpointStride = 512
    /// The most recent causes from probes' snapshots kept across resynchronisations.
    public static let earlierLimit = 16_384

    /// The graph before the first kept event.
    private var base = Graph()
    /// The events, 40 bytes each (see ``HistoryEntry``).
    private var entries = Deque<HistoryEntry>()
    /// The room `entries` has (see ``makeRoom(for:)``).
    private var entryCapacity = 0
    /// The threads the events happened on, each name once.
    private var threads = ThreadNames()
    /// Events' numbers: from `position` on, each event's number is one more than the
    /// one before (`id` 0: unnumbered), until the next run. A new run starts where
    /// numbers jump (events the probe dropped or skipped, a recording without numbers):
    /// at most one per batch, so an entry needs no number of its own.
    private var idRuns: [(position: Int, id: EventID)] = []
    /// The probe's recent caused events as of the last snapshot (``GraphSnapshot/recent``),
    /// in id order: causes from before this history began.
    public private(set) var earlier: [StageEvent] = []
    /// The text of the events that have one, by absolute index, in order.
    private var texts = Deque<(index: Int, text: String)>()
    /// Absolute position of `entries[0]`: events evicted so far.
    public private(set) var start = 0
    private var checkpoints: [(position: Int, graph: Graph)] = []
    private var infos: [NodeID: NodeInfo] = [:]
    public var limit = 100_000

    public init() {}

    /// Positions that have a checkpoint: a jump folds at most ``stride(for:)`` events
    /// from the one before it.
    public var checkpointPositions: [Int] { checkpoints.map(\.position) }

    /// Stage descriptions kept to replay subscribe events still in the history: they go
    /// with their subscribe event, so a long session does not keep every stage it saw.
    public var nodeInfoCount: Int { infos.count }

    /// What stage `id` was, while its subscribe event is still kept: the event log names
    /// a stage the graph has pruned with it.
    public func info(of id: NodeID) -> NodeInfo? { infos[id] }

    /// Absolute position after the newest event.
    public var end: Int { start + entries.count }

    /// Starts over from a snapshot (attach, reconnect); `recent` is the probe's recent
    /// caused events (``GraphSnapshot/recent``), for chains that start before it.
    public mutating func reset(to graph: Graph, recent: [StageEvent] = []) {
        base = graph.checkpoint
        threads = ThreadNames()
        idRuns.removeAll()
        earlier = recent.filter { $0.id != 0 }.sorted { $0.id < $1.id }
        entries.removeAll()
        entryCapacity = 0
        texts.removeAll()
        checkpoints.removeAll()
        start = 0
        infos.removeAll()
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
        if entries.isEmpty {
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
            if event.kind == .subscribe, let info = infos[event.node] { graph.insert(info) }
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
            base.locate(batch.locations)
            for i in checkpoints.indices { checkpoints[i].graph.locate(batch.locations) }
        }
        // So does the place of its code.
        if !batch.codes.isEmpty {
            for c in batch.codes where infos[c.node] != nil {
                infos[c.node]?.code = c.code
                infos[c.node]?.builtBy = c.builtBy
            }
            base.place(batch.codes)
            for i in checkpoints.indices { checkpoints[i].graph.place(batch.codes) }
        }
        graph.finish(batch)
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
            let entry = entries[p - start - 1]
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
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].time < time { low = mid + 1 } else { high = mid }
        }
        return min(start + low + 1, end)
    }

    /// The position of the last kept event at or before `time` (``start`` when none).
    public func position(atOrBefore time: Int64) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        return start + low
    }

    /// The event at `position` (the one the cursor has just applied).
    public func event(at position: Int) -> StageEvent? {
        let i = position - start - 1
        return entries.indices.contains(i) ? event(entries[i], index: position - 1) : nil
    }

    /// Bytes the history holds per event on average: entries and texts (their
    /// characters counted), not the checkpoints.
    public var bytesPerEvent: Double {
        guard !entries.isEmpty else { return 0 }
        let textBytes = texts.reduce(0) { $0 + 24 + $1.text.utf8.count }
        return Double(entries.count * MemoryLayout<HistoryEntry>.stride + textBytes) / Double(entries.count)
    }

    private func event(_ entry: HistoryEntry, index: Int) -> StageEvent {
        entry.event(value: entry.inlineValue ?? (entry.hasText ? EventValue(text: text(at: index)) : .none),
                    thread: threads.name(entry.thread),
                    id: id(at: index + 1))
    }

    /// The number of the event at `position` by its run (0 when unnumbered); a position
    /// after the newest gets the number the newest run would give it.
    private func id(at position: Int) -> EventID {
        var low = 0, high = idRuns.count
        while low < high {
            let mid = (low + high) / 2
            if idRuns[mid].position <= position { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return 0 }
        let run = idRuns[low - 1]
        return run.id == 0 ? 0 : run.id + EventID(position - run.position)
    }

    // MARK: - Events by number

    /// The number of the oldest kept event; nil when none is kept or they have none (a
    /// recording made before events were numbered).
    public var firstID: EventID? {
        guard !entries.isEmpty else { return nil }
        let id = id(at: start + 1)
        return id == 0 ? nil : id
    }

    /// The number of the newest kept event; nil as for ``firstID``.
    public var lastID: EventID? {
        guard !entries.isEmpty else { return nil }
        let id = id(at: end)
        return id == 0 ? nil : id
    }

    /// The position of the event numbered `id`, by binary search over the runs of
    /// numbers (they increase with position); nil when it is not kept (evicted, skipped,
    /// or never numbered).
    public func position(ofEvent id: EventID) -> Int? {
        guard id != 0 else { return nil }
        var low = 0, high = idRuns.count
        while low < high {
            let mid = (low + high) / 2
            if idRuns[mid].id <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0, idRuns[low - 1].id != 0 else { return nil }
        let run = idRuns[low - 1]
        let position = run.position + Int(id - run.id)
        let runEnd = low < idRuns.count ? idRuns[low].position : end + 1
        return position < runEnd && position > start && position <= end ? position : nil
    }

    /// The event numbered `id`: from the history, else from the probe's recent causes
    /// (``earlier``); its position when the history has it.
    public func event(numbered id: EventID) -> (position: Int?, event: StageEvent)? {
        if let position = position(ofEvent: id), let event = event(at: position) { return (position, event) }
        var low = 0, high = earlier.count
        while low < high {
            let mid = (low + high) / 2
            if earlier[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < earlier.count && earlier[low].id == id ? (nil, earlier[low]) : nil
    }

    /// Whether the event at `position` had a cause the entry could not number (more than
    /// 4 billion events back).
    public func causeIsTooFar(at position: Int) -> Bool {
        let i = position - start - 1
        return entries.indices.contains(i) && entries[i].causeIsTooFar
    }

    /// The text of the event at absolute `index` (binary search: texts are in order).
    private func text(at index: Int) -> String {
        var low = 0, high = texts.count
        while low < high {
            let mid = (low + high) / 2
            if texts[mid].index < index { low = mid + 1 } else { high = mid }
        }
        return low < texts.count && texts[low].index == index ? texts[low].text : ""
    }

    /// The graph after the first `position` events (clamped to what is kept).
    public func graph(at position: Int) -> Graph {
        let target = min(max(position, start), end)
        var graph = base
        var from = start
        if let checkpoint = checkpoints.last(where: { $0.position <= target }) {
            graph = checkpoint.graph
            from = checkpoint.position
        }
        for index in from..<target {
            let event = self.event(entries[index - start], index: index)
            if event.kind == .subscribe, let info = infos[event.node] { graph.insert(info) }
            graph.apply(event)
        }
        return graph
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

    /// Evicts the oldest events once there are ``limit`` and a sixteenth more, down to
    /// ``limit``: exactly, not a checkpoint span at a time (a span can be a quarter of the
    /// history). The evicted events are folded into `base` (from the last checkpoint
    /// before the new start, if any), so `base` stays the exact graph before the first
    /// kept event; the slack makes that one graph copy per `limit / 16` events.
    private mutating func evict() {
        guard entries.count > limit + limit / 16 else { return }
        let newStart = end - limit
        var graph = base
        var from = start
        if let last = checkpoints.lastIndex(where: { $0.position <= newStart }) {
            graph = checkpoints[last].graph
            from = checkpoints[last].position
            checkpoints.removeFirst(last + 1)
        }
        base = Graph()  // `graph` may now be the only reference: the fold copies nothing
        for index in from..<newStart {
            let event = self.event(entries[index - start], index: index)
            if event.kind == .subscribe, let info = infos[event.node] { graph.insert(info) }
            graph.apply(event)
        }
        base = graph
        // A stage's NodeInfo is needed only to replay its subscribe event.
        for entry in entries.prefix(newStart - start) where entry.kind == .subscribe {
            infos[entry.node] = nil
        }
        entries.removeFirst(newStart - start)
        start = newStart
        while let oldest = texts.first, oldest.index < start { texts.removeFirst() }
        // Keep the run the oldest kept event is in.
        let firstKept = idRuns.lastIndex { $0.position <= start + 1 } ?? 0
        if firstKept > 0 { idRuns.removeFirst(firstKept) }
    }
}

private extension Graph {
    /// A copy to keep as a checkpoint: it records no changes of its own.
    var checkpoint: Graph {
        var copy = self
        copy.stopRecordingChanges()
        return copy
    }
}
