import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeWire

/// Writes a recording of a busy program of any length, as a probe records one: every
/// stage with its subscribe event, 20 long-lived `subject → map → filter → sink`
/// pipelines receiving values (numbers, and every 16th a description longer than the
/// history keeps inline), short `Just → map → sink` pipelines finishing, and pipelines
/// cancelled by their sink, each value caused by the one upstream of it.
///
/// ```swift
/// let events = try BusyRecording.write(to: "/tmp/busy.pipescope", events: 10_000_000)
/// ```
public enum BusyRecording {
    /// Writes about `events` events (whole batches of 2,400 or so) to `path`; returns how
    /// many it wrote.
    @discardableResult
    public static func write(to path: String, events target: Int) throws -> Int {
        let writer = try RecordingWriter(path: path)
        defer { writer.close() }
        var welcome = ServerMessage()
        welcome.welcome.processName = "busy"
        welcome.welcome.pid = 4343
        welcome.welcome.protocolVersion = ProtocolVersion.current
        writer.append(welcome)
        writer.append(GraphSnapshot())
        var maker = Maker()
        for _ in 0..<20 { maker.longLived() }
        var total = 0
        while total < target {
            for i in 0..<750 { maker.value(on: i % 20) }
            for _ in 0..<10 { maker.shortLived() }
            for _ in 0..<5 { maker.cancelledBySink() }
            let batch = maker.take()
            total += batch.events.count
            writer.append(batch.numbered())
        }
        return total
    }

    private struct Maker {
        var batch = EventBatch()
        var now: Int64 = 1_700_000_000_000_000_000
        var nextID: NodeID = 1
        var sequence: UInt64 = 0
        var pipelines: [(subject: NodeID, map: NodeID, filter: NodeID)] = []
        var counter = 0

        mutating func take() -> EventBatch {
            sequence += UInt64(batch.events.count)
            batch.trailer.sequence = sequence
            defer { batch = EventBatch() }
            return batch
        }

        @discardableResult
        mutating func event(_ kind: EventKind, _ node: NodeID, demand: Demand = .none, other: NodeID = 0,
                            cause: CancelCause? = nil, value: EventValue = .none, causedBy: EventID = 0) -> EventID {
            now += 1_000
            var e = StageEvent(kind, node: node, time: now, demand: demand, other: other, cause: cause, value: value)
            e.causedBy = causedBy
            e.thread = "main"
            batch.events.append(e)
            return sequence + UInt64(batch.events.count)
        }

        mutating func stage(_ op: String, type: String, parent: NodeID?, subscriber: String) -> NodeID {
            let id = nextID
            nextID += 1
            batch.append(NodeInfo(id: id, parent: parent, operatorName: op, publisherType: type, subscriber: subscriber,
                                  thread: "main", createdNanos: now))
            event(.subscribe, id)
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
            let described = counter % 16 == 0
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
            event(.subscription, debounce, other: subject)
            event(.subscription, receive, other: debounce)
            event(.request, receive, demand: .unlimited)
            event(.cancelled, receive, cause: .downstream)
            event(.cancelled, debounce, cause: .downstream)
            event(.cancelled, subject, cause: .downstream)
        }
    }
}
