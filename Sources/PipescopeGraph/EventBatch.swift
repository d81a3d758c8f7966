/// Events in order, with what they need to be understood: the unit a probe flushes, the
/// wire carries in one frame, and the inspector folds.
///
/// ```swift
/// var batch = EventBatch()
/// batch.append(NodeInfo(id: 1, operatorName: "Map", publisherType: "Map<…>",
///                       subscriber: "Sink", thread: "main", createdNanos: t))
/// batch.events.append(StageEvent(.value, node: 1, time: t + 5, text: "42"))
/// graph.fold(batch)
/// ```
public struct EventBatch: Hashable, Sendable {
    /// The ``NodeInfo`` of every stage whose subscribe event is in ``events``, in the
    /// order of those events.
    public var nodes: [NodeInfo] = []
    public var events: [StageEvent] = []
    /// Locations of stages added by earlier batches, found since (see ``LocatedStage``).
    public var locations: [LocatedStage] = []
    /// Where stages' own code is, found since they were added (this batch's or earlier
    /// ones'; see ``StageCode``).
    public var codes: [StageCode] = []
    /// What is true once the events are folded: the probe's counts and its gate.
    public var trailer = BatchTrailer()

    public init(nodes: [NodeInfo] = [], events: [StageEvent] = [], locations: [LocatedStage] = [],
                trailer: BatchTrailer = BatchTrailer()) {
        self.nodes = nodes
        self.events = events
        self.locations = locations
        self.trailer = trailer
    }

    /// Adds a new stage: its info and its subscribe event.
    public mutating func append(_ info: NodeInfo) {
        nodes.append(info)
        events.append(StageEvent(.subscribe, node: info.id, time: info.createdNanos))
    }

    /// Each event in order, with the ``NodeInfo`` of the stage a subscribe event adds:
    /// how ``Graph/fold(_:)`` walks a batch, for a fold that looks at the graph after
    /// every event (an exporter, a test).
    ///
    /// ```swift
    /// batch.forEachEvent { event, newStage in
    ///     if let newStage { graph.insert(newStage) }
    ///     graph.apply(event)
    ///     look(at: graph, after: event)
    /// }
    /// graph.finish(batch)
    /// ```
    public func forEachEvent(_ body: (StageEvent, NodeInfo?) throws -> Void) rethrows {
        var next = 0
        var byID: [NodeID: NodeInfo]?
        for event in events {
            var info: NodeInfo?
            if event.kind == .subscribe {
                if next < nodes.count, nodes[next].id == event.node {
                    info = nodes[next]
                    next += 1
                } else {
                    // Not in event order (a hand-made or foreign batch): look it up.
                    if byID == nil { byID = Dictionary(nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
                    info = byID?[event.node]
                }
            }
            try body(event, info)
        }
    }

    /// The batch with its events numbered as the probe numbered them (``StageEvent/id``):
    /// counting back from the trailer's sequence, the number of its last event. Unchanged
    /// when the sequence is 0 (a probe that sent none) or smaller than the events.
    public func numbered() -> EventBatch {
        var batch = self
        guard let first = Self.firstID(sequence: trailer.sequence, count: events.count) else { return batch }
        for i in batch.events.indices { batch.events[i].id = first + UInt64(i) }
        return batch
    }

    /// The number of the first of `count` events whose last is numbered `sequence`; nil
    /// when that says nothing (0, or fewer than the events).
    public static func firstID(sequence: UInt64, count: Int) -> EventID? {
        guard sequence > 0, sequence >= UInt64(count) else { return nil }
        return sequence - UInt64(count) + 1
    }

    /// Whether folding it changes anything a user sees besides the events: a location
    /// found, the gate, a reason the gate opened or the pause that ended, events dropped,
    /// or (old recordings) value texts.
    public var hasNews: Bool {
        !events.isEmpty || !locations.isEmpty || !codes.isEmpty || trailer.gate.paused || !trailer.gate.resumedBecause.isEmpty
            || trailer.gate.endedPause != nil
            || !trailer.lastValues.isEmpty || trailer.droppedSinceLast > 0
    }
}

/// What a batch says about the probe once its events are folded. It travels as one
/// message and is copied as a whole.
public struct BatchTrailer: Hashable, Sendable {
    /// The probe's sequence number of the batch's last event: events ever flushed.
    public var sequence: UInt64 = 0
    /// Events the probe dropped since it started (its buffer was full).
    public var dropped: UInt64 = 0
    /// Events it dropped since the previous batch. Its buffer drops only once full, so
    /// they all come after this batch's last event: the gap is there.
    public var droppedSinceLast: UInt64 = 0
    /// ``droppedSinceLast`` by the pipeline they belonged to (its root stage; 0: a stage
    /// the probe did not know yet). Empty from probes before protocol version 5's field 8.
    public var droppedByPipeline: [NodeID: UInt64] = [:]
    /// When the first of them was lost (wall-clock nanoseconds); 0 when none, or not said.
    public var droppedSinceNanos: Int64 = 0
    /// The gate: paused or not, what waits at it, why it opened by itself.
    public var gate = GateState()
    /// Recordings made before value texts travelled on value events: the newest value
    /// text of each stage that received values in the batch. Today's probes leave it
    /// empty.
    public var lastValues: [NodeID: String] = [:]

    public init(sequence: UInt64 = 0, dropped: UInt64 = 0, droppedSinceLast: UInt64 = 0,
                gate: GateState = GateState(), lastValues: [NodeID: String] = [:]) {
        self.sequence = sequence
        self.dropped = dropped
        self.droppedSinceLast = droppedSinceLast
        self.gate = gate
        self.lastValues = lastValues
    }

    /// The trailer of the first parts of a batch cut in several (``lastValues`` and the
    /// drops since the last batch go with the last part only): the same counts and gate,
    /// at `sequence`.
    public func leading(at sequence: UInt64) -> BatchTrailer {
        BatchTrailer(sequence: sequence, dropped: dropped, gate: gate)
    }
}
