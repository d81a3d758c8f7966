import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeWire

/// A busy program's recording, as a probe records one, in batches of about 2,400 events:
/// 20 long-lived `subject → map → filter → sink` pipelines receiving values, short
/// `Just → map → sink` pipelines finishing, and `subject → debounce → receive(on:) → sink`
/// pipelines cancelled by their sink, each value caused by the one upstream of it.
/// Written in one of two shapes (``Shape``): ``BusyRecording``'s, the replay benchmark's,
/// and ``ExportBenchRecording``'s, the export benchmark's.
///
/// ```swift
/// let events = try BusyProgramRecording.write(to: "/tmp/busy.pipescope", events: 1_000_000, shape: .busy)
/// ```
enum BusyProgramRecording {
    /// How its events are written.
    enum Shape {
        /// Every stage with its subscribe event and thread; values typed (numbers, and
        /// every 16th a description longer than the history keeps inline).
        case busy
        /// Values as texts on the events, as a probe of the export benchmark's version
        /// sent them; no subscribe events, no threads.
        case export

        var process: (name: String, pid: Int32) { self == .busy ? ("busy", 4343) : ("export-bench", 4242) }
    }

    /// Writes about `events` events to `path`; returns how many it wrote.
    static func write(to path: String, events target: Int, shape: Shape) throws -> Int {
        let writer = try RecordingWriter(path: path)
        defer { writer.close() }
        var welcome = ServerMessage()
        welcome.welcome.processName = shape.process.name
        welcome.welcome.pid = shape.process.pid
        welcome.welcome.protocolVersion = ProtocolVersion.current
        writer.append(welcome)
        writer.append(GraphSnapshot())
        var maker = Maker(shape: shape)
        for _ in 0..<20 { maker.longLived() }
        var total = 0
        while total < target {
            for i in 0..<750 { maker.value(on: i % 20) }
            for _ in 0..<10 { maker.shortLived() }
            for _ in 0..<5 { maker.cancelledBySink() }
            let batch = maker.take()
            total += batch.events.count
            writer.append(batch.numbered())   // the numbers the causes point at, as a probe sends them
        }
        return total
    }

    private struct Maker {
        let shape: Shape
        var batch = EventBatch()
        var now: Int64 = 1_700_000_000_000_000_000
        var nextID: NodeID = 1
        var sequence: UInt64 = 0
        var pipelines: [(subject: NodeID, map: NodeID, filter: NodeID)] = []
        var counter = 0

        init(shape: Shape) { self.shape = shape }

        mutating func take() -> EventBatch {
            sequence += UInt64(batch.events.count)
            batch.trailer.sequence = sequence
            defer { batch = EventBatch() }
            return batch
        }

        /// Adds an event and returns its number (as the probe numbers them).
        @discardableResult
        mutating func event(_ kind: EventKind, _ node: NodeID, demand: Demand = .none, other: NodeID = 0,
                            cause: CancelCause? = nil, value: EventValue = .none, causedBy: EventID = 0) -> EventID {
            now += 1_000
            var e: StageEvent
            switch shape {
            case .export: e = StageEvent(kind, node: node, time: now, demand: demand, other: other, cause: cause, text: value.text)
            case .busy:
                e = StageEvent(kind, node: node, time: now, demand: demand, other: other, cause: cause, value: value)
                e.thread = "main"
            }
            e.causedBy = causedBy
            batch.events.append(e)
            return sequence + UInt64(batch.events.count)
        }

        mutating func stage(_ op: String, type: String, parent: NodeID?, subscriber: String) -> NodeID {
            let id = nextID
            nextID += 1
            batch.append(NodeInfo(id: id, parent: parent, operatorName: op, publisherType: type, subscriber: subscriber,
                                  thread: "main", createdNanos: shape == .busy ? now : now + 1_000))
            if shape == .busy { event(.subscribe, id) } else { now += 1_000 }
            return id
        }

        mutating func longLived() {
            let filter = stage("Filter", type: "Filter<Map<PassthroughSubject<Int, Never>, Int>>", parent: nil, subscriber: "Sink")
            let map = stage("Map", type: "Map<PassthroughSubject<Int, Never>, Int>", parent: filter, subscriber: "Filter")
            let subject = stage("PassthroughSubject", type: "PassthroughSubject<Int, Never>", parent: map, subscriber: "Map")
            event(.subscription, subject)
            event(.subscription, map, other: subject)
            event(.subscription, filter, other: subject)
            event(.request, subject, demand: .unlimited)
            pipelines.append((subject, map, filter))
        }

        mutating func value(on pipeline: Int) {
            counter += 1
            let p = pipelines[pipeline]
            let described = shape == .busy && counter % 16 == 0
            let sent = event(.value, p.subject, value: described ? EventValue(text: "Reading(id: \(counter), celsius: 21.5)")
                                                                  : .int(Int64(counter)))
            let mapped = event(.value, p.map, value: .int(Int64(counter * 10)), causedBy: sent)
            event(.value, p.filter, value: .int(Int64(counter * 10)), causedBy: mapped)
        }

        mutating func shortLived() {
            let map = stage("Map", type: "Map<Just<Int>, String>", parent: nil, subscriber: "Sink")
            let just = stage("Just", type: "Just<Int>", parent: map, subscriber: "Map")
            event(.subscription, just)
            event(.subscription, map, other: just)
            let request = event(.request, just, demand: .unlimited)
            let value = event(.value, just, value: .int(1), causedBy: request)
            event(.value, map, value: EventValue(text: "\"1\""), causedBy: value)
            event(.finished, just, causedBy: request)
            event(.finished, map, causedBy: request)
        }

        mutating func cancelledBySink() {
            let receive = stage("ReceiveOn", type: "ReceiveOn<Debounce<PassthroughSubject<Int, Never>>>", parent: nil,
                                subscriber: "Sink")
            let debounce = stage("Debounce", type: "Debounce<PassthroughSubject<Int, Never>>", parent: receive,
                                 subscriber: "ReceiveOn")
            let subject = stage("PassthroughSubject", type: "PassthroughSubject<Int, Never>", parent: debounce,
                                subscriber: "Debounce")
            event(.subscription, subject)
            // (The export shape's names no upstream here, as its benchmark's recording did.)
            event(.subscription, debounce, other: shape == .busy ? subject : 0)
            event(.subscription, receive, other: shape == .busy ? debounce : 0)
            event(.request, receive, demand: .unlimited)
            event(.cancelled, receive, cause: .downstream)
            event(.cancelled, debounce, cause: .downstream)
            event(.cancelled, subject, cause: .downstream)
        }
    }
}
