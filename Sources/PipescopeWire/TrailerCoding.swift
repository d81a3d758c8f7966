import PipescopeGraph

// A batch's trailer between the domain and the wire: one message, converted whole.

extension BatchTrailer {
    public init(wire t: WireBatchTrailer) {
        self.init(sequence: t.sequence, dropped: t.dropped, droppedSinceLast: t.droppedSinceLast,
                  gate: GateState(paused: t.paused, pending: t.pending.map(PendingEvent.init(wire:)),
                                  resumedBecause: t.resumedBecause),
                  lastValues: t.lastValues)
        droppedByPipeline = Self.drops(t.droppedByPipeline)
        droppedSinceNanos = t.droppedSinceNs
        gate.pausedSinceNanos = t.pausedSinceNs
        if t.hasEndedPause {
            gate.endedPause = PauseInterval(fromNanos: t.endedPause.fromNs, toNanos: t.endedPause.toNs)
        }
    }

    public var wire: WireBatchTrailer {
        var t = WireBatchTrailer()
        t.sequence = sequence
        t.dropped = dropped
        t.droppedSinceLast = droppedSinceLast
        t.paused = gate.paused
        t.pending = gate.pending.map(\.wire)
        t.resumedBecause = gate.resumedBecause
        t.lastValues = lastValues
        t.droppedByPipeline = Self.wire(droppedByPipeline)
        t.droppedSinceNs = droppedSinceNanos
        t.pausedSinceNs = gate.pausedSinceNanos
        if let pause = gate.endedPause {
            t.endedPause.fromNs = pause.fromNanos
            t.endedPause.toNs = pause.toNanos
        }
        return t
    }
}

extension PendingEvent {
    public init(wire p: WirePendingEvent) {
        self.init(ticket: p.ticket, node: p.node, kind: EventKind(wire: p.kind), thread: p.thread, sinceNanos: p.sinceNs)
    }

    public var wire: WirePendingEvent {
        var p = WirePendingEvent()
        p.ticket = ticket
        p.node = node
        p.kind = kind.wire
        p.thread = thread
        p.sinceNs = sinceNanos
        return p
    }
}

extension BatchTrailer {
    /// Drops by pipeline from the wire (a trailer's or a snapshot's), a root given twice
    /// added up.
    static func drops(_ wire: [WirePipelineDrops]) -> [NodeID: UInt64] {
        var byPipeline: [NodeID: UInt64] = [:]
        for drop in wire { byPipeline[drop.root, default: 0] &+= drop.events }
        return byPipeline
    }

    /// Drops by pipeline as they travel: most first, then by root, so the same counts
    /// always encode to the same bytes.
    static func wire(_ byPipeline: [NodeID: UInt64]) -> [WirePipelineDrops] {
        byPipeline.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
            var drop = WirePipelineDrops()
            drop.root = $0.key
            drop.events = $0.value
            return drop
        }
    }
}
