import PipescopeGraph

// Batches as versions 1 and 2 wrote them, read from old recordings. Nothing writes them.

extension EventBatch {
    /// A version 1 batch (one message per event, the trailer's fields loose in the batch).
    public init(legacy b: WireEventBatch) {
        self.init(nodes: b.nodes.map(NodeInfo.init(wire:)), events: b.events.map(StageEvent.init(wire:)))
        var t = WireBatchTrailer()
        t.sequence = b.sequence
        t.dropped = b.dropped
        t.droppedSinceLast = b.droppedSinceLast
        t.paused = b.paused
        t.pending = b.pending
        t.resumedBecause = b.resumedBecause
        t.lastValues = b.lastValues
        trailer = BatchTrailer(wire: t)
        self = numbered()
    }
}

extension WirePackedBatch {
    /// The trailer: version 3's nested message, or version 2's loose fields.
    var domainTrailer: BatchTrailer {
        if hasTrailer { return BatchTrailer(wire: trailer) }
        var t = WireBatchTrailer()
        t.sequence = sequence
        t.dropped = dropped
        t.droppedSinceLast = droppedSinceLast
        t.paused = paused
        t.pending = pending
        t.resumedBecause = resumedBecause
        t.lastValues = lastValues
        return BatchTrailer(wire: t)
    }
}

extension StageEvent {
    /// A version 1 event message.
    public init(wire e: WireEvent) {
        let kind = EventKind(wire: e.kind)
        self.init(kind, node: e.node, time: e.timeNs, text: e.text)
        switch kind.payload.field {
        case .demand: demand = Demand(wire: e.demand)
        case .other: other = e.other
        case .cause: cause = CancelCause(wire: e.cause)
        case .none: break
        }
    }
}
