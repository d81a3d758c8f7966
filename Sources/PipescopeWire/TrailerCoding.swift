import PipescopeGraph

// A batch's trailer between the domain and the wire: one message, converted whole.

extension BatchTrailer {
    public init(wire t: WireBatchTrailer) {
        self.init(sequence: t.sequence, dropped: t.dropped, droppedSinceLast: t.droppedSinceLast,
                  gate: GateState(paused: t.paused, pending: t.pending.map(PendingEvent.init(wire:)),
                                  resumedBecause: t.resumedBecause),
                  lastValues: t.lastValues)
        for drop in t.droppedByPipeline { droppedByPipeline[drop.root, default: 0] &+= drop.events }
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
        // Most first, then by root: the same trailer always encodes to the same bytes.
        t.droppedByPipeline = droppedByPipeline.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
            var drop = WirePipelineDrops()
            drop.root = $0.key
            drop.events = $0.value
            return drop
        }
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
