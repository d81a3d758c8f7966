import Benchmark
import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeRecording
import PipescopeWire

extension RecordingMessages: MessageSource {}

/// `pipescope export` of a 1,000,000-event recording, end to end: the file read in
/// chunks, each frame decoded, folded, drawn and written as JSON. One iteration is the
/// whole export. The recording is made once and left in the temporary directory
/// (``ExportBench/recordingPath``), so the command-line tool can be timed on the same
/// file.
func exportBenchmarks() {
    Benchmark("export/1M-event recording to trace JSON",
              configuration: .init(metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
                                   scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 3)) { benchmark in
        for _ in benchmark.scaledIterations {
            var recording = try RecordingMessages(path: ExportBench.recordingPath)
            let result = try RecordingExport.run(&recording, to: ExportBench.tracePath)
            blackHole(result.outputBytes)
        }
    } setup: {
        let events = try ExportBench.makeRecording()
        let size = (try? FileManager.default.attributesOfItem(atPath: ExportBench.recordingPath)[.size] as? Int) ?? 0
        print("export: a recording of \(events) events, \(size / 1024 / 1024) MiB, at \(ExportBench.recordingPath); "
            + "the process holds \(ExportBench.residentMiB()) MiB before exporting (the other benchmarks' fixtures): "
            + "the peak below includes them")
    } teardown: {
        let size = (try? FileManager.default.attributesOfItem(atPath: ExportBench.tracePath)[.size] as? Int) ?? 0
        print("export: the trace is \(size / 1024 / 1024) MiB")
    }
}

/// A recording shaped like a busy program's: long-lived pipelines receiving values
/// (most events), short pipelines subscribing and finishing, and pipelines cancelled by
/// their sink with the cancel travelling upstream, flushed in batches of about 2,500
/// events as a probe does every 25 ms.
enum ExportBench {
    static let recordingPath = NSTemporaryDirectory() + "/pipescope-export-bench-1M.pipescope"
    static let tracePath = NSTemporaryDirectory() + "/pipescope-export-bench-1M.json"
    static let targetEvents = 1_000_000

    /// The process's resident memory now, from /proc/self/statm.
    static func residentMiB() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024 / 1024
    }

    /// Writes the recording (a few seconds); returns its event count.
    @discardableResult
    static func makeRecording() throws -> Int {
        let writer = try RecordingWriter(path: recordingPath)
        defer { writer.close() }
        var welcome = ServerMessage()
        welcome.welcome.processName = "export-bench"
        welcome.welcome.pid = 4242
        welcome.welcome.protocolVersion = ProtocolVersion.current
        writer.append(welcome)
        writer.append(GraphSnapshot())
        var maker = Maker()
        // 20 long-lived subject → map → filter → sink pipelines, sharing the subject's subscription.
        for _ in 0..<20 { maker.longLived() }
        var total = 0
        while total < targetEvents {
            for i in 0..<750 { maker.value(on: i % 20) }  // 2,250 value events
            for _ in 0..<10 { maker.shortLived() }        // 90 events
            for _ in 0..<5 { maker.cancelledBySink() }    // 50 events
            let batch = maker.take()
            total += batch.events.count
            writer.append(batch)
        }
        return total
    }

    struct Maker {
        var batch = EventBatch()
        var now: Int64 = 1_700_000_000_000_000_000
        /// Nanoseconds between two events (1 µs: a million events a second).
        var step: Int64 = 1_000
        var nextID: NodeID = 1
        var sequence: UInt64 = 0
        /// The subject, map and filter of each long-lived pipeline.
        var pipelines: [(subject: NodeID, map: NodeID, filter: NodeID)] = []
        var counter = 0

        mutating func take() -> EventBatch {
            sequence += UInt64(batch.events.count)
            batch.trailer.sequence = sequence
            defer { batch = EventBatch() }
            return batch
        }

        mutating func event(_ kind: EventKind, _ node: NodeID, demand: Demand = .none, other: NodeID = 0,
                            cause: CancelCause? = nil, text: String = "") {
            now += step
            batch.events.append(StageEvent(kind, node: node, time: now, demand: demand, other: other, cause: cause, text: text))
        }

        mutating func stage(_ op: String, type: String, parent: NodeID?, subscriber: String) -> NodeID {
            let id = nextID
            nextID += 1
            now += step
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
            event(.value, p.subject, text: String(counter))
            event(.value, p.map, text: String(counter * 10))
            event(.value, p.filter, text: String(counter * 10))
        }

        mutating func shortLived() {
            let map = stage("Map", type: "Map<Just<Int>, String>", parent: nil, subscriber: "Sink")
            let just = stage("Just", type: "Just<Int>", parent: map, subscriber: "Map")
            event(.subscription, just)
            event(.subscription, map, other: just)
            event(.request, just, demand: .unlimited)
            event(.value, just, text: "1")
            event(.value, map, text: "\"1\"")
            event(.finished, just)
            event(.finished, map)
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
