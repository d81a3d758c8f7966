extension WireEventBatch {
    /// About how many bytes a part may hold: half a frame, so a part always fits in one
    /// (Framing.maxFrameSize) with room for the columns' own bytes.
    public static let partBudget = Framing.maxFrameSize / 2

    /// This batch cut into consecutive parts that each fit in one frame.
    ///
    /// One flush can hold tens of thousands of events, each value described in up to a
    /// few hundred bytes when every value is captured: more than a frame may carry.
    /// Each part carries the NodeInfo of the stages subscribing in it and its own
    /// sequence; drops counted since the last batch go with the first part, and the
    /// newest values and the gate's state with the last, so folding the parts in order
    /// equals folding the whole batch.
    public func parts(budget: Int = WireEventBatch.partBudget) -> [WireEventBatch] {
        let estimate = events.reduce(0) { $0 + 16 + $1.text.utf8.count }
            + nodes.reduce(0) { $0 + Self.size(of: $1) }
            + lastValues.values.reduce(0) { $0 + 16 + $1.utf8.count }
        guard estimate > budget else { return [self] }

        var infos: [UInt64: WireNodeInfo] = [:]
        for info in nodes { infos[info.id] = info }
        var parts: [WireEventBatch] = []
        var part = WireEventBatch()
        var size = 0
        let firstSequence = sequence &- UInt64(events.count)
        var position = firstSequence
        func close() {
            part.sequence = position
            part.dropped = dropped
            parts.append(part)
            part = WireEventBatch()
            size = 0
        }
        for event in events {
            var cost = 16 + event.text.utf8.count
            let info = event.kind == .eventSubscribe ? infos[event.node] : nil
            if let info { cost += Self.size(of: info) }
            if size + cost > budget, !part.events.isEmpty { close() }
            if let info { part.nodes.append(info) }
            part.events.append(event)
            size += cost
            position &+= 1
        }
        close()
        parts[0].droppedSinceLast = droppedSinceLast
        parts[parts.count - 1].lastValues = lastValues
        parts[parts.count - 1].paused = paused
        parts[parts.count - 1].pending = pending
        parts[parts.count - 1].resumedBecause = resumedBecause
        return parts
    }

    private static func size(of info: WireNodeInfo) -> Int {
        48 + info.operator.utf8.count + info.publisherType.utf8.count + info.subscriber.utf8.count + info.thread.utf8.count
    }
}
