import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeWire

/// Writes the recording the README's export measurements use (Benchmarks/export-sizes.sh),
/// the shape of Benchmarks' `ExportBench`: long-lived pipelines receiving values (their
/// texts on the events, as a probe of this version sends them), short ones finishing,
/// pipelines cancelled by their sink, each value caused by the one upstream of it.
/// ``BusyRecording`` is the replay benchmark's; `bench-recording` (Tests/BenchRecording)
/// writes either from the command line.
///
/// ```swift
/// let events = try ExportBenchRecording.write(to: "/tmp/big.pipescope", events: 1_000_000)
/// ```
public enum ExportBenchRecording {
    /// Writes about `events` events (whole batches of about 2,400) to `path`; returns how
    /// many it wrote.
    @discardableResult
    public static func write(to path: String, events target: Int) throws -> Int {
        let writer = try RecordingWriter(path: path)
        defer { writer.close() }
        var welcome = ServerMessage()
        welcome.welcome.processName = "export-bench"
        welcome.welcome.pid = 4242
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
            writer.append(batch.numbered())   // the numbers the causes point at, as a probe sends them
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

        /// Adds an event and returns its number (as the probe numbers them).
        @discardableResult
        mutating func event(_ kind: EventKind, _ node: NodeID, demand: Demand = .none, other: NodeID = 0,
                            cause: CancelCause? = nil, text: String = "", causedBy: EventID = 0) -> EventID {
            now += 1_000
            var e = StageEvent(kind, node: node, time: now, demand: demand, other: other, cause: cause, text: text)
            e.causedBy = causedBy
            batch.events.append(e)
            return sequence + UInt64(batch.events.count)
        }

        mutating func stage(_ op: String, type: String, parent: NodeID?, subscriber: String) -> NodeID {
            let id = nextID
            nextID += 1
            now += 1_000
            batch.append(NodeInfo(id: id, parent: parent, operatorName: op, publisherType: type, subscriber: subscriber,
                                  thread: "main", createdNanos: now))
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
            let sent = event(.value, p.subject, text: String(counter))
            let mapped = event(.value, p.map, text: String(counter * 10), causedBy: sent)
            event(.value, p.filter, text: String(counter * 10), causedBy: mapped)
        }

        mutating func shortLived() {
            let map = stage("Map", type: "Map<Just<Int>, String>", parent: nil, subscriber: "Sink")
            let just = stage("Just", type: "Just<Int>", parent: map, subscriber: "Map")
            event(.subscription, just)
            event(.subscription, map, other: just)
            let request = event(.request, just, demand: .unlimited)
            let value = event(.value, just, text: "1", causedBy: request)
            event(.value, map, text: "\"1\"", causedBy: value)
            event(.finished, just, causedBy: request)
            event(.finished, map, causedBy: request)
        }

        mutating func cancelledBySink() {
            let receive = stage("ReceiveOn", type: "ReceiveOn<Debounce<PassthroughSubject<Int, Never>>>", parent: nil, subscriber: "Sink")
            let debounce = stage("Debounce", type: "Debounce<PassthroughSubject<Int, Never>>", parent: receive, subscriber: "ReceiveOn")
            let subject = stage("PassthroughSubject", type: "PassthroughSubject<Int, Never>", parent: debounce, subscriber: "Debounce")
            event(.subscription, subject)
            event(.subscription, debounce)
            event(.subscription, receive)
            event(.request, receive, demand: .unlimited)
            event(.cancelled, receive, cause: .downstream)
            event(.cancelled, debounce, cause: .downstream)
            event(.cancelled, subject, cause: .downstream)
        }
    }
}
