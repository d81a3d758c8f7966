public typealias WirePackedBatch = Pipescope_V1_PackedBatch

/// Converts between the in-memory ``WireEventBatch`` (one struct per event, what the
/// graph folds) and the ``WirePackedBatch`` that travels (columns, strings by id).
///
/// See `PackedBatch` in Resources/pipescope.proto for the layout and why it is so.
public enum BatchPacking {
    /// Packs `batch`, adding its new names to `table` and to the packed batch.
    public static func pack(_ batch: WireEventBatch, table: inout StringTable) -> WirePackedBatch {
        var p = WirePackedBatch()
        if table.needsReset(forUpTo: batch.nodes.count * 4) {
            table.removeAll()
            p.resetStrings = true
        }
        var added: [String] = []
        let infoCount = batch.nodes.count
        p.nodeIds.reserveCapacity(infoCount)
        p.nodeParents.reserveCapacity(infoCount)
        p.nodeOperators.reserveCapacity(infoCount)
        p.nodePublisherTypes.reserveCapacity(infoCount)
        p.nodeSubscribers.reserveCapacity(infoCount)
        p.nodeThreads.reserveCapacity(infoCount)
        p.nodeCreatedNs.reserveCapacity(infoCount)
        for info in batch.nodes {
            p.nodeIds.append(info.id)
            p.nodeParents.append(info.parent)
            p.nodeOperators.append(table.id(for: info.operator, added: &added))
            p.nodePublisherTypes.append(table.id(for: info.publisherType, added: &added))
            p.nodeSubscribers.append(table.id(for: info.subscriber, added: &added))
            p.nodeThreads.append(table.id(for: info.thread, added: &added))
            p.nodeCreatedNs.append(info.createdNs)
        }
        p.newStrings = added

        let count = batch.events.count
        p.kinds.reserveCapacity(count)
        p.nodeDeltas.reserveCapacity(count)
        p.timeDeltas.reserveCapacity(count)
        p.baseTimeNs = batch.events.first?.timeNs ?? 0
        var node: UInt64 = 0
        var time = p.baseTimeNs
        for (index, event) in batch.events.enumerated() {
            p.kinds.append(event.kind)
            p.nodeDeltas.append(Int64(bitPattern: event.node &- node))
            p.timeDeltas.append(event.timeNs &- time)
            node = event.node
            time = event.timeNs
            switch Column(event.kind) {
            case .demand: p.demands.append(event.demand)
            case .other: p.others.append(event.other)
            case .cause: p.causes.append(event.cause)
            case .none: break
            }
            if !event.text.isEmpty {
                p.textEvents.append(UInt32(index))
                p.texts.append(event.text)
            }
        }
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
        let infoCount = p.nodeIds.count
        guard [p.nodeParents.count, p.nodeOperators.count, p.nodePublisherTypes.count,
               p.nodeSubscribers.count, p.nodeThreads.count, p.nodeCreatedNs.count]
            .allSatisfy({ $0 == infoCount }) else {
            throw FrameError.malformed("a packed batch whose stage columns have different lengths")
        }
        batch.nodes.reserveCapacity(infoCount)
        for i in 0..<infoCount {
            var info = WireNodeInfo()
            info.id = p.nodeIds[i]
            info.parent = p.nodeParents[i]
            info.operator = try table.string(p.nodeOperators[i])
            info.publisherType = try table.string(p.nodePublisherTypes[i])
            info.subscriber = try table.string(p.nodeSubscribers[i])
            info.thread = try table.string(p.nodeThreads[i])
            info.createdNs = p.nodeCreatedNs[i]
            batch.nodes.append(info)
        }

        let count = p.kinds.count
        guard p.nodeDeltas.count == count, p.timeDeltas.count == count,
              p.textEvents.count == p.texts.count else {
            throw FrameError.malformed("a packed batch whose event columns have different lengths")
        }
        var events = [WireEvent](repeating: WireEvent(), count: count)
        var node: UInt64 = 0
        var time = p.baseTimeNs
        var demands = 0, others = 0, causes = 0
        for i in 0..<count {
            let kind = p.kinds[i]
            node = node &+ UInt64(bitPattern: p.nodeDeltas[i])
            time = time &+ p.timeDeltas[i]
            events[i].kind = kind
            events[i].node = node
            events[i].timeNs = time
            switch Column(kind) {
            case .demand:
                guard demands < p.demands.count else { throw shortColumn("demands") }
                events[i].demand = p.demands[demands]
                demands += 1
            case .other:
                guard others < p.others.count else { throw shortColumn("others") }
                events[i].other = p.others[others]
                others += 1
            case .cause:
                guard causes < p.causes.count else { throw shortColumn("causes") }
                events[i].cause = p.causes[causes]
                causes += 1
            case .none: break
            }
        }
        guard demands == p.demands.count, others == p.others.count, causes == p.causes.count else {
            throw FrameError.malformed("a packed batch with more column entries than events of their kinds")
        }
        for (index, text) in zip(p.textEvents, p.texts) {
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
