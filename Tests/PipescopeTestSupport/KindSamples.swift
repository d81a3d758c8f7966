import PipescopeGraph

/// One event of every kind, each carrying exactly what its kind's
/// ``EventKind/payload`` says, for tests that prove every kind survives a codec.
///
/// The stages: the pipeline 1 (sink) ← 2 (map) ← 3 (subject), 4 a root of its own, and
/// 7 an owner.
public enum KindSamples {
    public static let time: Int64 = 1_700_000_000_000_000_000

    /// Every kind but subscribe (a batch adds stages through ``EventBatch/append(_:)``).
    public static let kinds = EventKind.allCases.filter { $0 != .subscribe }

    /// One event of `kind` on the stages above.
    public static func event(_ kind: EventKind) -> StageEvent {
        var event = StageEvent(kind, node: 3, time: time)
        switch kind.payload.field {
        case .demand: event.demand = .count(5)
        case .other: event.other = 3
        case .cause: event.cause = .inspector
        case .none: break
        }
        if kind.payload.text { event.text = "what \(kind) says" }
        switch kind {
        case .subscription, .forward: event.node = 2
        case .adopt, .feeds: event.node = 4
        case .owned: (event.node, event.other) = (1, 7)
        case .ownerReleased: (event.node, event.other) = (0, 7)
        case .unknown, .subscribe, .request, .value, .demand, .finished, .failed, .cancelled, .contractBroken,
             .delivered: break
        }
        if kind.payload.caused { event.thread = "worker 1" }
        if kind.payload.timed { (event.selfNanos, event.totalNanos) = (1_500, 4_000) }
        return event
    }

    /// The four stages, then one event of each of `kinds`, numbered as a probe numbers
    /// them (the batch's sequence is its last event's number), each that records a cause
    /// caused by the event before it.
    public static func batch(_ kinds: [EventKind]) -> EventBatch {
        var batch = stages()
        batch.events += kinds.map(event)
        for i in batch.events.indices {
            batch.events[i].id = EventID(i + 1)
            if batch.events[i].kind.payload.caused, i > 0 { batch.events[i].causedBy = EventID(i) }
        }
        batch.trailer.sequence = EventID(batch.events.count)
        return batch
    }

    /// The four stages folded.
    public static func graph() -> Graph {
        var graph = Graph()
        graph.fold(stages())
        return graph
    }

    public static func info(_ id: NodeID, parent: NodeID?, name: String) -> NodeInfo {
        NodeInfo(id: id, parent: parent, operatorName: name, publisherType: name, subscriber: "Sink",
                 thread: "main", createdNanos: time - 1000)
    }

    private static func stages() -> EventBatch {
        var batch = EventBatch()
        for id: NodeID in 1...4 { batch.append(info(id, parent: id == 1 || id == 4 ? nil : id - 1, name: "S\(id)")) }
        return batch
    }
}
