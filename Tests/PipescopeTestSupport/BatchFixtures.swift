import PipescopeGraph

/// Builds ``EventBatch`` values by hand, the way a probe would flush them, for tests of
/// the graph fold, the codec, the model and the views.
///
/// Every event gets a time `base + step * n` where n counts the events built so far,
/// so batches are deterministic.
///
/// ```swift
/// var b = BatchBuilder()
/// b.subscribe(1, op: "Map", subscriber: "Sink")
/// b.subscription(1)
/// b.request(1, .unlimited)
/// b.value(1, "42")
/// let batch = b.build()
/// ```
public struct BatchBuilder {
    /// 2024-01-02 12:00:00 UTC, in nanoseconds since 1970.
    public static let baseNanos: Int64 = 1_704_196_800_000_000_000

    public var batch = EventBatch()
    /// Time of the next event.
    public var now: Int64
    /// Added to ``now`` after each event.
    public var step: Int64

    public init(start: Int64 = BatchBuilder.baseNanos, step: Int64 = 1_000_000) {
        now = start
        self.step = step
    }

    /// The batch built so far, with `sequence` set to the number of events in it unless
    /// given, and its events numbered back from it as a probe numbers them.
    public func build(sequence: UInt64? = nil, dropped: UInt64 = 0) -> EventBatch {
        var b = batch
        b.trailer.sequence = sequence ?? UInt64(b.events.count)
        b.trailer.dropped = dropped
        return b.numbered()
    }

    // MARK: - Events

    /// A new stage: its NodeInfo plus an EVENT_SUBSCRIBE; `location` and `frames`: where
    /// the program made it, as a probe sends it for a root or an inner publisher.
    public mutating func subscribe(
        _ id: NodeID, parent: NodeID = 0, op: String, type: String? = nil,
        subscriber: String, thread: String = "main", location: SourceLocation? = nil, frames: [SourceLocation] = []
    ) {
        var info = BatchFixtures.info(id: id, parent: parent, op: op, type: type ?? op, subscriber: subscriber,
                                      thread: thread, created: now)
        info.location = location
        info.frames = frames
        batch.nodes.append(info)
        add(.subscribe, id)
    }

    /// Where the program made a stage, as a debug build describes it:
    /// `/src/Feed/<file>:<line>` in `function`.
    public static func at(_ file: String, _ line: Int, _ function: String = "Feed.start()") -> SourceLocation {
        SourceLocation(file: "/src/Feed/" + file, line: line, function: function, image: "FeedApp", offset: 0x1000)
    }

    /// The stage received its subscription; `owner` is the stage that owns it (0 = itself).
    public mutating func subscription(_ id: NodeID, owner: NodeID = 0) {
        add(.subscription, id) { $0.other = owner }
    }

    public mutating func request(_ id: NodeID, _ demand: Demand) {
        add(.request, id) { $0.demand = demand }
    }

    /// Additional demand returned by the subscriber's receive(_:).
    public mutating func demand(_ id: NodeID, _ demand: Demand) {
        add(.demand, id) { $0.demand = demand }
    }

    /// One value delivered, with its text when the probe captured one (as a probe of
    /// this version sends it: on the event).
    public mutating func value(_ id: NodeID, _ text: String? = nil) {
        add(.value, id) { $0.text = text ?? "" }
    }

    /// One value delivered, described the way older recordings carry it: the batch's
    /// newest text for `id` in `lastValues`, on no event.
    public mutating func valueDescribedPerBatch(_ id: NodeID, _ text: String) {
        add(.value, id)
        batch.trailer.lastValues[id] = text
    }

    public mutating func finish(_ id: NodeID) { add(.finished, id) }

    public mutating func fail(_ id: NodeID, _ error: String) {
        add(.failed, id) { $0.text = error }
    }

    public mutating func cancel(_ id: NodeID, cause: CancelCause = .downstream) {
        add(.cancelled, id) { $0.cause = cause }
    }

    /// `id` forwards its subscriber to `other` (AnyPublisher).
    public mutating func forward(_ id: NodeID, to other: NodeID) {
        add(.forward, id) { $0.other = other }
    }

    /// Any event, for kinds the helpers do not cover (unknown kinds, odd fields).
    public mutating func add(_ kind: EventKind, _ id: NodeID, _ edit: (inout StageEvent) -> Void = { _ in }) {
        var e = StageEvent(kind, node: id, time: now)
        edit(&e)
        batch.events.append(e)
        now += step
    }

    // MARK: - Whole stages

    /// A linear pipeline, root first: `ops[0]` is subscribed by `subscriber`, each later
    /// op by the one before. Ids are `firstID, firstID+1, …`. Every stage gets its own
    /// subscription and requests unlimited demand.
    public mutating func chain(from firstID: NodeID, subscriber: String, ops: [String]) {
        var parent: NodeID = 0
        var sub = subscriber
        for (i, op) in ops.enumerated() {
            let id = firstID + NodeID(i)
            subscribe(id, parent: parent, op: op, subscriber: sub)
            parent = id
            sub = op
        }
        for i in (0..<ops.count).reversed() {
            subscription(firstID + NodeID(i))
        }
        for i in 0..<ops.count {
            request(firstID + NodeID(i), .unlimited)
        }
    }
}

/// Ready-made stages and batches.
public enum BatchFixtures {
    public static func info(
        id: NodeID, parent: NodeID = 0, op: String, type: String? = nil, subscriber: String,
        thread: String = "main", created: Int64 = BatchBuilder.baseNanos
    ) -> NodeInfo {
        NodeInfo(id: id, parent: parent, operatorName: op, publisherType: type ?? op, subscriber: subscriber,
                 thread: thread, createdNanos: created)
    }

    /// `subject.map{}.filter{}.sink{}` after five values of which three passed the
    /// filter, as the probe reports it: Map and Filter share the subject's subscription.
    ///
    /// Ids: 1 Filter (→ Sink), 2 Map (→ Filter), 3 PassthroughSubject (→ Map).
    public static func filterMapSubject(into b: inout BatchBuilder, values: [Int] = [1, 2, 3, 4, 5]) {
        b.subscribe(1, op: "Filter", type: "Filter<Map<PassthroughSubject<Int, Never>, Int>>", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Map", type: "Map<PassthroughSubject<Int, Never>, Int>", subscriber: "Filter")
        b.subscribe(3, parent: 2, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "Map")
        b.subscription(3)
        b.subscription(2, owner: 3)
        b.subscription(1, owner: 3)
        b.request(3, .unlimited)
        for v in values {
            b.value(3, String(v))
            b.value(2, String(v * 10))
            if v % 2 == 1 { b.value(1, String(v * 10)) }
        }
    }

    /// The filter/map/subject pipeline plus a cancelled `Map ← Timer` pipeline (ids 4, 5)
    /// and a failed `TryMap ← Sequence` pipeline (ids 6, 7).
    public static func realisticBatch() -> EventBatch {
        var b = BatchBuilder()
        filterMapSubject(into: &b)
        b.subscribe(4, op: "Map", type: "Map<Timer.TimerPublisher, Date>", subscriber: "Sink")
        b.subscribe(5, parent: 4, op: "TimerPublisher", type: "Timer.TimerPublisher", subscriber: "Map")
        b.subscription(5)
        b.subscription(4, owner: 5)
        b.request(5, .count(3))
        b.value(5, "2024-01-02 12:00:00 +0000")
        b.value(4, "2024-01-02 12:00:00 +0000")
        b.cancel(5, cause: .owner)
        b.subscribe(6, op: "TryMap", type: "TryMap<Publishers.Sequence<[String], Never>, Int>", subscriber: "Sink")
        b.subscribe(7, parent: 6, op: "Sequence", type: "Publishers.Sequence<[String], Never>", subscriber: "TryMap")
        b.subscription(7)
        b.subscription(6)
        b.request(6, .count(1))
        b.request(7, .unlimited)
        b.value(7, "\"12\"")
        b.value(6, "12")
        b.value(7, "\"x\"")
        b.fail(6, "ParseError.notANumber(\"x\")")
        b.cancel(7)
        return b.build()
    }

    /// A single pipeline `depth` stages deep: ids 1…depth, root first.
    public static func deepChain(depth: Int) -> EventBatch {
        var b = BatchBuilder()
        let ops = ["Map", "Filter", "CompactMap", "RemoveDuplicates", "Scan", "Debounce",
                   "ReceiveOn", "HandleEvents", "FlatMap", "SwitchToLatest", "Catch", "Retry",
                   "Print", "PrefixWhile", "DropFirst"]
        b.chain(from: 1, subscriber: "Sink", ops: (0..<depth).map { ops[$0 % ops.count] })
        for id in 1...NodeID(depth) { b.value(id, String(id)) }
        return b.build()
    }
}

extension Graph {
    /// A graph folded from `batches`, in order.
    public static func folding(_ batches: EventBatch...) -> Graph {
        var g = Graph()
        for batch in batches { g.fold(batch) }
        return g
    }
}
