import DequeModule
import PipescopeGraph
import PipescopeWire

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
    /// The newest value texts of each batch, at the absolute index of its last event.
    private var batchValues = Deque<(index: Int, values: [NodeID: String])>()
    /// Absolute position of `entries[0]`: events evicted so far.
    public private(set) var start = 0
    private var checkpoints: [(position: Int, graph: Graph)] = []
    private var infos: [NodeID: WireNodeInfo] = [:]
    public var limit = 100_000

    public init() {}

    /// Positions that have a checkpoint: a jump folds at most ``stride(for:)`` events
    /// from the one before it.
    public var checkpointPositions: [Int] { checkpoints.map(\.position) }

    /// Stage descriptions kept to replay subscribe events still in the history: they go
    /// with their subscribe event, so a long session does not keep every stage it saw.
    public var nodeInfoCount: Int { infos.count }

    /// Absolute position after the newest event.
    public var end: Int { start + entries.count }

    /// Starts over from a snapshot (attach, reconnect).
    public mutating func reset(to graph: Graph) {
        base = graph
        entries.removeAll()
        texts.removeAll()
        batchValues.removeAll()
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

    /// Folds `batch` into `graph` (the live graph) and appends its events.
    ///
    /// The fold goes in chunks that end where a checkpoint is due, so a batch of any size
    /// (65,536 events in a burst) still leaves a checkpoint every ``stride(for:)`` events
    /// and a cursor jump never folds more than that.
    public mutating func append(_ batch: WireEventBatch, folding graph: inout Graph) {
        let oldEnd = end
        for info in batch.nodes { infos[info.id] = info }
        // Probes of this version put each value's text on its event. Older recordings
        // carry one text per stage per batch instead (`lastValues`): it belongs to the
        // stage's last value event in the batch, so the detail pane can list recent
        // values with their times and texts.
        var textAt: [Int: String] = [:]
        if !batch.lastValues.isEmpty {
            var named = Set<NodeID>()
            for i in batch.events.indices.reversed() where batch.events[i].kind == .eventValue {
                let node = batch.events[i].node
                if named.insert(node).inserted, batch.events[i].text.isEmpty,
                   let text = batch.lastValues[node] { textAt[i] = text }
                if named.count == batch.lastValues.count { break }
            }
        }
        for (i, event) in batch.events.enumerated() {
            let text = event.text.isEmpty ? textAt[i] ?? "" : event.text
            let entry = HistoryEntry(event, text: text)
            if entry.hasText, !entry.textInline { texts.append((end, text)) }
            entries.append(entry)
        }
        if !batch.events.isEmpty, !batch.lastValues.isEmpty { batchValues.append((end - 1, batch.lastValues)) }

        let count = batch.events.count
        guard count > 0 else {
            graph.apply(batch)
            return
        }
        var infoByID: [NodeID: WireNodeInfo] = [:]
        if count > Self.checkpointStride { for info in batch.nodes { infoByID[info.id] = info } }
        var from = 0
        while from < count {
            let due = Self.stride(for: graph) - (oldEnd + from - (checkpoints.last?.position ?? start))
            let to = min(count, from + max(1, due))
            if from == 0, to == count {
                graph.apply(batch)
            } else {
                var chunk = WireEventBatch()
                chunk.events = Array(batch.events[from..<to])
                chunk.nodes = chunk.events.compactMap { $0.kind == .eventSubscribe ? infoByID[$0.node] : nil }
                chunk.dropped = batch.dropped
                chunk.sequence = batch.sequence &- UInt64(count - to)
                if to == count { chunk.lastValues = batch.lastValues }
                graph.apply(chunk)
            }
            if oldEnd + to - (checkpoints.last?.position ?? start) >= Self.stride(for: graph) {
                checkpoints.append((oldEnd + to, graph))
            }
            from = to
        }
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
    public func events(endingAt position: Int, count: Int, node: NodeID? = nil, kinds: Set<WireEventKind>? = nil,
                       scan: Int = 5_000) -> [(position: Int, event: WireEvent)] {
        var found: [(Int, WireEvent)] = []
        var p = min(position, end)
        let floor = max(start, p - scan)
        let filtered = node != nil || kinds != nil
        while p > start, found.count < count, p > floor || !filtered {
            let entry = entries[p - start - 1]
            if node == nil || entry.node == node, kinds?.contains(entry.eventKind) ?? true {
                found.append((p, event(entry, index: p - 1)))
            }
            p -= 1
        }
        return found.reversed()
    }

    /// The event at `position` (the one the cursor has just applied).
    public func event(at position: Int) -> WireEvent? {
        let i = position - start - 1
        return entries.indices.contains(i) ? event(entries[i], index: position - 1) : nil
    }

    /// Bytes the history holds per event on average: entries, texts and value texts
    /// (their characters counted), not the checkpoints.
    public var bytesPerEvent: Double {
        guard !entries.isEmpty else { return 0 }
        let textBytes = texts.reduce(0) { $0 + 24 + $1.text.utf8.count }
        let valueBytes = batchValues.reduce(0) { sum, batch in
            sum + 24 + batch.values.reduce(0) { $0 + 40 + $1.value.utf8.count }
        }
        return Double(entries.count * MemoryLayout<HistoryEntry>.stride + textBytes + valueBytes) / Double(entries.count)
    }

    private func event(_ entry: HistoryEntry, index: Int) -> WireEvent {
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

    /// The first position in `batchValues` at or after absolute `index`.
    private func firstBatchValues(from index: Int) -> Int {
        var low = 0, high = batchValues.count
        while low < high {
            let mid = (low + high) / 2
            if batchValues[mid].index < index { low = mid + 1 } else { high = mid }
        }
        return low
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
        var nextValues = firstBatchValues(from: from)
        for index in from..<target {
            let entry = entries[index - start]
            let event = self.event(entry, index: index)
            if event.kind == .eventSubscribe, let info = infos[event.node] {
                var one = WireEventBatch()
                one.nodes = [info]
                one.events = [event]
                one.sequence = graph.sequence
                one.dropped = graph.dropped
                graph.apply(one)
            } else {
                graph.apply(event)
            }
            if nextValues < batchValues.count, batchValues[nextValues].index == index {
                var values = WireEventBatch()
                values.lastValues = batchValues[nextValues].values
                values.sequence = graph.sequence
                values.dropped = graph.dropped
                graph.apply(values)
                nextValues += 1
            }
        }
        return graph
    }

    private mutating func evict() {
        guard entries.count > limit else { return }
        // Drop whole checkpoint spans, so `base` is always an exact graph.
        while entries.count > limit, let first = checkpoints.first {
            let evicted = first.position - start
            // A stage's NodeInfo is needed only to replay its subscribe event.
            for entry in entries.prefix(evicted) where entry.eventKind == .eventSubscribe {
                infos[entry.node] = nil
            }
            entries.removeFirst(evicted)
            start = first.position
            base = first.graph
            checkpoints.removeFirst()
        }
        while let oldest = texts.first, oldest.index < start { texts.removeFirst() }
        while let oldest = batchValues.first, oldest.index < start { batchValues.removeFirst() }
    }
}
