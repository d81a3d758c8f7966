public typealias WirePackedBatch = Pipescope_V1_PackedBatch

/// Converts between the in-memory ``WireEventBatch`` (one struct per event, what the
/// graph folds) and the ``WirePackedBatch`` that travels (columns, strings by id).
///
/// See `PackedBatch` in Resources/pipescope.proto for the layout and why it is so.
public enum BatchPacking {
    /// Packs `batch`, adding its new names to `table` and to the packed batch.
    ///
    /// Columns are built in local arrays and assigned once: the generated message keeps
    /// its fields in copy-on-write storage, where appending field by field would copy a
    /// column on every append.
    public static func pack(_ batch: WireEventBatch, table: inout StringTable) -> WirePackedBatch {
        var p = WirePackedBatch()
        if table.needsReset(forUpTo: batch.nodes.count * 4) {
            table.removeAll()
            p.resetStrings = true
        }
        var added: [String] = []
        let infos = batch.nodes
        var ids: [UInt64] = [], parents: [UInt64] = [], created: [Int64] = []
        var operators: [UInt32] = [], types: [UInt32] = [], subscribers: [UInt32] = [], threads: [UInt32] = []
        ids.reserveCapacity(infos.count)
        for info in infos {
            ids.append(info.id)
            parents.append(info.parent)
            operators.append(table.id(for: info.operator, added: &added))
            types.append(table.id(for: info.publisherType, added: &added))
            subscribers.append(table.id(for: info.subscriber, added: &added))
            threads.append(table.id(for: info.thread, added: &added))
            created.append(info.createdNs)
        }
        p.newStrings = added
        p.nodeIds = ids
        p.nodeParents = parents
        p.nodeOperators = operators
        p.nodePublisherTypes = types
        p.nodeSubscribers = subscribers
        p.nodeThreads = threads
        p.nodeCreatedNs = created

        let events = batch.events
        var kinds: [UInt32] = [], nodeDeltas: [Int64] = [], timeDeltas: [Int64] = []
        var demands: [Int64] = [], others: [UInt64] = [], causes: [UInt32] = []
        var textEvents: [UInt32] = [], texts: [String] = []
        kinds.reserveCapacity(events.count)
        nodeDeltas.reserveCapacity(events.count)
        timeDeltas.reserveCapacity(events.count)
        let base = events.first?.timeNs ?? 0
        var node: UInt64 = 0
        var time = base
        for (index, event) in events.enumerated() {
            kinds.append(UInt32(truncatingIfNeeded: event.kind.rawValue))
            nodeDeltas.append(Int64(bitPattern: event.node &- node))
            timeDeltas.append(event.timeNs &- time)
            node = event.node
            time = event.timeNs
            switch Column(event.kind) {
            case .demand: demands.append(event.demand)
            case .other: others.append(event.other)
            case .cause: causes.append(UInt32(truncatingIfNeeded: event.cause.rawValue))
            case .none: break
            }
            if !event.text.isEmpty {
                textEvents.append(UInt32(index))
                texts.append(event.text)
            }
        }
        p.baseTimeNs = base
        p.kinds = kinds
        p.nodeDeltas = nodeDeltas
        p.timeDeltas = timeDeltas
        p.demands = demands
        p.others = others
        p.causes = causes
        p.textEvents = textEvents
        p.texts = texts
        p.lastValues = batch.lastValues
        p.dropped = batch.dropped
        p.droppedSinceLast = batch.droppedSinceLast
        p.sequence = batch.sequence
        p.paused = batch.paused
        p.pending = batch.pending
        p.resumedBecause = batch.resumedBecause
        return p
    }

    /// Unpacks a batch, reading names from `table` after adding the batch's new ones.
    /// Columns that disagree, or names never defined, throw ``FrameError/malformed(_:)``.
    public static func unpack(_ p: WirePackedBatch, table: inout StringTable) throws -> WireEventBatch {
        try table.append(contentsOf: p.newStrings, reset: p.resetStrings)
        var batch = WireEventBatch()
        let ids = p.nodeIds, parents = p.nodeParents, operators = p.nodeOperators
        let types = p.nodePublisherTypes, subscribers = p.nodeSubscribers, threads = p.nodeThreads
        let created = p.nodeCreatedNs
        guard [parents.count, operators.count, types.count, subscribers.count, threads.count, created.count]
            .allSatisfy({ $0 == ids.count }) else {
            throw FrameError.malformed("a packed batch whose stage columns have different lengths")
        }
        var infos: [WireNodeInfo] = []
        infos.reserveCapacity(ids.count)
        for i in ids.indices {
            var info = WireNodeInfo()
            info.id = ids[i]
            info.parent = parents[i]
            info.operator = try table.string(operators[i])
            info.publisherType = try table.string(types[i])
            info.subscriber = try table.string(subscribers[i])
            info.thread = try table.string(threads[i])
            info.createdNs = created[i]
            infos.append(info)
        }
        batch.nodes = infos

        let kinds = p.kinds, nodeDeltas = p.nodeDeltas, timeDeltas = p.timeDeltas
        let demandColumn = p.demands, otherColumn = p.others, causeColumn = p.causes
        let textEvents = p.textEvents, texts = p.texts
        let count = kinds.count
        guard nodeDeltas.count == count, timeDeltas.count == count, textEvents.count == texts.count else {
            throw FrameError.malformed("a packed batch whose event columns have different lengths")
        }
        var events = [WireEvent](repeating: WireEvent(), count: count)
        var node: UInt64 = 0
        var time = p.baseTimeNs
        var demands = 0, others = 0, causes = 0
        for i in 0..<count {
            let kind = WireEventKind(rawValue: Int(kinds[i])) ?? .UNRECOGNIZED(Int(kinds[i]))
            node = node &+ UInt64(bitPattern: nodeDeltas[i])
            time = time &+ timeDeltas[i]
            events[i].kind = kind
            events[i].node = node
            events[i].timeNs = time
            switch Column(kind) {
            case .demand:
                guard demands < demandColumn.count else { throw shortColumn("demands") }
                events[i].demand = demandColumn[demands]
                demands += 1
            case .other:
                guard others < otherColumn.count else { throw shortColumn("others") }
                events[i].other = otherColumn[others]
                others += 1
            case .cause:
                guard causes < causeColumn.count else { throw shortColumn("causes") }
                let cause = Int(causeColumn[causes])
                events[i].cause = WireCancelCause(rawValue: cause) ?? .UNRECOGNIZED(cause)
                causes += 1
            case .none: break
            }
        }
        guard demands == demandColumn.count, others == otherColumn.count, causes == causeColumn.count else {
            throw FrameError.malformed("a packed batch with more column entries than events of their kinds")
        }
        for (index, text) in zip(textEvents, texts) {
            guard Int(index) < count else {
                throw FrameError.malformed("a packed batch with text for event \(index) of \(count)")
            }
            events[Int(index)].text = text
        }
        batch.events = events
        batch.lastValues = p.lastValues
        batch.dropped = p.dropped
        batch.droppedSinceLast = p.droppedSinceLast
        batch.sequence = p.sequence
        batch.paused = p.paused
        batch.pending = p.pending
        batch.resumedBecause = p.resumedBecause
        return batch
    }

    private static func shortColumn(_ name: String) -> FrameError {
        .malformed("a packed batch with fewer \(name) than events that need one")
    }

    /// Which optional column an event kind has an entry in.
    private enum Column {
        case demand, other, cause, none

        init(_ kind: WireEventKind) {
            switch kind {
            case .eventRequest, .eventDemand: self = .demand
            case .eventSubscription, .eventForward, .eventAdopt, .eventFeeds, .eventOwned, .eventOwnerReleased: self = .other
            case .eventCancelled: self = .cause
            default: self = .none
            }
        }
    }
}
