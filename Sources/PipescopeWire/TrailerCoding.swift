import PipescopeGraph

// A batch's trailer between the domain and the wire: one message, converted whole.

extension BatchTrailer {
    public init(wire t: WireBatchTrailer) {
        self.init(sequence: t.sequence, dropped: t.dropped, droppedSinceLast: t.droppedSinceLast,
                  gate: GateState(paused: t.paused, pending: t.pending.map(PendingEvent.init(wire:)),
                                  resumedBecause: t.resumedBecause),
                  lastValues: t.lastValues)
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
