import DequeModule
import PipescopeGraph

/// Every event received, and the graph as it was after any of them.
///
/// History is append-only; moving the cursor never rewrites it. A checkpoint (a copy of
/// the graph) is kept every ``stride(for:)`` events (512, more for graphs of more stages),
/// so the graph at any position is a checkpoint plus at most that many events folded:
/// jumping anywhere costs the same.
/// Past ``limit`` events the oldest are evicted, a checkpoint at a time; node summaries
/// live on in the checkpoints' graphs.
public struct History: Sendable {
    public static let checkpointStride = 512

    /// The graph before the first kept event.
    private var base = Graph()
    /// The events, 32 bytes each (see ``HistoryEntry``).
    private var entries = Deque<HistoryEntry>()
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

    /// Starts over from a snapshot (attach, reconnect).
    public mutating func reset(to graph: Graph) {
        base = graph
        entries.removeAll()
        texts.removeAll()
        checkpoints.removeAll()
        start = 0
        infos.removeAll()
    }

    /// Continues from a snapshot after a gap (the probe skipped this inspector because it
    /// fell behind): history before the gap stays, and positions after it start from
    /// `graph`.
    public mutating func resync(to graph: Graph) {
        if checkpoints.last?.position == end { checkpoints.removeLast() }
        if entries.isEmpty {
            base = graph
        } else {
            checkpoints.append((end, graph))
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
                if named.insert(node).inserted, batch.events[i].text.isEmpty,
                   let text = lastValues[node] { textAt[i] = text }
                if named.count == lastValues.count { break }
            }
        }
        var stride = Self.stride(for: graph)
        for (i, original) in batch.events.enumerated() {
            var event = original
            if let text = textAt[i] { event.text = text }
            let entry = HistoryEntry(event, text: event.text)
            if entry.hasText, !entry.textInline { texts.append((end, event.text)) }
            entries.append(entry)
            if event.kind == .subscribe, let info = infos[event.node] { graph.insert(info) }
            graph.apply(event)
            if end - (checkpoints.last?.position ?? start) >= stride {
                checkpoints.append((end, graph))
                stride = Self.stride(for: graph)
            }
        }
        // A location found after its stage was sent belongs to the stage from its start:
        // the infos a jump re-folds from, and the checkpoints it starts at, get it too.
        if !batch.locations.isEmpty {
            for l in batch.locations where infos[l.node] != nil {
                infos[l.node]?.location = l.location
                infos[l.node]?.frames = l.frames
            }
            for i in checkpoints.indices { checkpoints[i].graph.locate(batch.locations) }
        }
        graph.finish(batch)
        evict()
    }

    /// Events between checkpoints: 512, or one per stage for graphs larger than that, so
    /// that checkpoints (a copy of the graph each) cost at most about one stage's summary
    /// per event kept.
    public static func stride(for graph: Graph) -> Int {
        max(checkpointStride, graph.nodes.count)
    }

    /// The `count` events up to and including `position`'s, oldest first, optionally only
    /// those of one stage and of some kinds (looking back at most `scan` events).
    public func events(endingAt position: Int, count: Int, node: NodeID? = nil, kinds: Set<EventKind>? = nil,
                       scan: Int = 5_000) -> [(position: Int, event: StageEvent)] {
        var found: [(Int, StageEvent)] = []
        var p = min(position, end)
        let floor = max(start, p - scan)
        let filtered = node != nil || kinds != nil
        while p > start, found.count < count, p > floor || !filtered {
            let entry = entries[p - start - 1]
            if node == nil || entry.node == node, kinds?.contains(entry.kind) ?? true {
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
        entry.event(text: entry.inlineText ?? (entry.hasText ? text(at: index) : ""))
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

    private mutating func evict() {
        guard entries.count > limit else { return }
        // Drop whole checkpoint spans, so `base` is always an exact graph.
        while entries.count > limit, let first = checkpoints.first {
            let evicted = first.position - start
            // A stage's NodeInfo is needed only to replay its subscribe event.
            for entry in entries.prefix(evicted) where entry.kind == .subscribe {
                infos[entry.node] = nil
            }
            entries.removeFirst(evicted)
            start = first.position
            base = first.graph
            checkpoints.removeFirst()
        }
        while let oldest = texts.first, oldest.index < start { texts.removeFirst() }
    }
}
