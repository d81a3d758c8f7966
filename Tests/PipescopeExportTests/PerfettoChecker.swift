import Foundation
import PipescopeExport
import PipescopeGraph
import XCTest

/// What a recording holds, as `scripts/check-perfetto-trace.py` checks a Perfetto export
/// against it: each stage's life, values and demand history, and the arrows its causes
/// and cancels make. Worked out from the recording's events with the graph's fold, not
/// from the exporter.
struct PerfettoFacts: Encodable {
    struct Process: Encodable {
        var pid: Int
        var name: String
    }

    struct Stage: Encodable {
        var id: NodeID
        var `operator`: String
        var downstream: NodeID?
        var start: Int64
        var end: Int64
        var status: String
        var values: Int
        var demand: [[Int64]]
    }

    var process: Process
    var stages: [Stage]
    var value_arrows: [[NodeID]]
    var cancel_arrows: [[NodeID]]?
    var dropped: UInt64?
    /// Optional: a stage's value texts, in order, exactly; its failure's text.
    var value_texts: [String: [String]]?
    var error_texts: [String: String]?
    /// Optional: what the "recording ends" instant says.
    var ending: String?

    /// Folds the recording (its first snapshot, then its batches, numbered as a probe
    /// numbers them) and says what the export must show.
    static func of(process: String, pid: Int32, snapshot: GraphSnapshot, batches: [EventBatch],
                   cancelArrows: [[NodeID]]? = nil) -> PerfettoFacts {
        var graph = Graph()
        graph.load(snapshot)
        let before = Set(graph.nodes.keys)
        var start: [NodeID: Int64] = [:]
        var values: [NodeID: Int] = [:]
        var demand: [NodeID: [[Int64]]] = [:]
        var shown: [NodeID: Int64] = [:]
        var drawnKinds: [EventID: (node: NodeID, batch: Int)] = [:]
        var arrows: [[NodeID]] = []
        var last: Int64 = 0
        let origin = batches.first { !$0.events.isEmpty }?.events.first?.time ?? 0
        for id in before where !(graph[id]?.status.isTerminal ?? true) {
            // Shown from the recording's start, as the JSON's slices (their real subscribe
            // is in the slice's annotations).
            start[id] = max(graph[id]!.createdNanos, origin)
            let v = graph[id]!.outstanding.wire
            if v != 0 { demand[id] = [[origin, v]]; shown[id] = v }
        }
        for (b, batch) in batches.map({ $0.numbered() }).enumerated() {
            batch.forEachEvent { event, info in
                if let info { graph.insert(info) }
                let wasLive = graph[event.node].map { !$0.status.isTerminal } ?? false
                graph.apply(event)
                last = max(last, event.time)
                if event.kind == .subscribe, graph[event.node] != nil, start[event.node] == nil {
                    start[event.node] = event.time
                }
                let drawn = start[event.node] != nil
                switch event.kind {
                case .value:
                    let mirrors = graph.nodes.values.filter { $0.forwardsTo == event.node && start[$0.id] != nil }
                    if wasLive, drawn { values[event.node, default: 0] += 1 }
                    for m in mirrors where !(m.status.isTerminal) { values[m.id, default: 0] += 1 }
                    if event.causedBy != 0, let cause = drawnKinds[event.causedBy], cause.batch >= b - 1, drawn {
                        arrows.append([cause.node, event.node])
                    }
                    if drawn { drawnKinds[event.id] = (event.node, b) }
                case .request, .demand, .finished, .failed:
                    if drawn, wasLive { drawnKinds[event.id] = (event.node, b) }
                default:
                    break
                }
                if [.value, .request, .demand].contains(event.kind) {
                    for (id, _) in start where !(graph[id]?.status.isTerminal ?? true) {
                        guard let v = graph[id]?.outstanding.wire, shown[id] != v, shown[id] != nil || v != 0 else { continue }
                        shown[id] = v
                        demand[id, default: []].append([event.time, v])
                    }
                }
            }
            graph.finish(batch)
        }
        let stages = start.keys.sorted().map { id -> Stage in
            let node = graph[id]!
            let ended = node.status.isTerminal
            // A counter ends with its stage: at 0.
            if ended, let last = shown[id], last != 0 { demand[id, default: []].append([node.endedNanos!, 0]) }
            return Stage(id: id, operator: node.operatorName, downstream: node.parent, start: start[id]!,
                         end: ended ? node.endedNanos! : last, status: ended ? node.status.rawValue : "live at end",
                         values: values[id] ?? 0, demand: demand[id] ?? [])
        }
        return PerfettoFacts(process: Process(pid: Int(pid), name: process), stages: stages, value_arrows: arrows,
                             cancel_arrows: cancelArrows, dropped: batches.last?.trailer.dropped)
    }
}

/// Runs `scripts/check-perfetto-trace.py`, which decodes a trace with Perfetto's own
/// schema (the `perfetto` package's `perfetto_trace_pb2`) and checks it against the facts.
enum PerfettoChecker {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/check-perfetto-trace.py").path

    /// Fails the test, with the checker's words, unless the trace passes. A machine
    /// without python3 or the perfetto module fails too, saying what to install.
    static func check(_ trace: String, _ facts: PerfettoFacts, file: StaticString = #filePath, line: UInt = #line) throws {
        let factsPath = trace + ".facts.json"
        try JSONEncoder().encode(facts).write(to: URL(fileURLWithPath: factsPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, trace, factsPath]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        do {
            try process.run()
        } catch {
            return XCTFail("cannot run python3 (\(error)): the Perfetto checks need it, with Perfetto's schema: "
                + "install python3, then `python3 -m pip install perfetto protobuf`", file: file, line: line)
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0:
            XCTAssertTrue(output.contains("check-perfetto-trace: OK"), output, file: file, line: line)
            print(output, terminator: "")
        case 2:
            XCTFail("the Perfetto checker could not start: \(output)\nInstall what it needs: "
                + "`python3 -m pip install perfetto protobuf`", file: file, line: line)
        case 127:
            XCTFail("python3 is not installed: the Perfetto checks need it, with Perfetto's schema: "
                + "install python3, then `python3 -m pip install perfetto protobuf`", file: file, line: line)
        default:
            XCTFail("the Perfetto trace \(trace) fails its checks:\n\(output)", file: file, line: line)
        }
    }
}
