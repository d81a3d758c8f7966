import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import XCTest

/// An exported trace read back with a strict JSON parser (JSONSerialization), with the
/// questions the tests ask of it.
struct TraceFile {
    let document: [String: Any]
    let events: [[String: Any]]

    /// Parses `data`; fails the test unless it is a JSON object with a `traceEvents` array.
    init(data: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        let object = try JSONSerialization.jsonObject(with: data)
        document = try XCTUnwrap(object as? [String: Any], "the trace is a JSON object", file: file, line: line)
        events = try XCTUnwrap(document["traceEvents"] as? [[String: Any]], "with a traceEvents array", file: file, line: line)
    }

    /// Exports the recording at `path` through the whole path the CLI takes, and reads
    /// the result back.
    static func export(_ path: String, options: ExportOptions = .init()) throws -> (TraceFile, RecordingExport.Result) {
        var recording = try RecordingMessages(path: path, chunkSize: 4096)
        let output = path + ".json"
        let result = try RecordingExport.run(&recording, to: output, source: path, options: options)
        let data = try XCTUnwrap(FileManager.default.contents(atPath: output))
        return (try TraceFile(data: data), result)
    }

    func phase(_ ph: String) -> [[String: Any]] { events.filter { $0["ph"] as? String == ph } }

    func named(_ name: String, ph: String = "i") -> [[String: Any]] {
        phase(ph).filter { $0["name"] as? String == name }
    }

    /// The complete slices, by the stage in their args.
    var slicesByStage: [NodeID: [[String: Any]]] {
        Dictionary(grouping: phase("X"), by: { Self.stage($0) ?? 0 })
    }

    static func stage(_ event: [String: Any]) -> NodeID? {
        (event["args"] as? [String: Any])?["stage"].flatMap { ($0 as? NSNumber)?.uint64Value }
    }

    static func arg(_ event: [String: Any], _ key: String) -> Any? {
        (event["args"] as? [String: Any])?[key]
    }

    /// Microseconds as whole nanoseconds, as Perfetto reads them.
    static func nanos(_ value: Any?) -> Int64? {
        (value as? NSNumber).map { Int64(($0.doubleValue * 1000).rounded()) }
    }

    /// Track names by (pid, tid), from the thread_name metadata.
    var threadNames: [Int: String] {
        var names: [Int: String] = [:]
        for e in named("thread_name", ph: "M") {
            if let tid = e["tid"] as? Int, let name = Self.arg(e, "name") as? String { names[tid] = name }
        }
        return names
    }
}

/// How Perfetto's trace processor lays out a JSON trace's thread tracks: events sorted
/// by timestamp (file order among equals), one stack of open slices per track, a
/// complete slice that starts inside another and ends after it dropped
/// (`slice_drop_overlapping_complete_event`), flows bound to the slice on top of the
/// stack. Used to check that nothing the export writes would be dropped or mis-bound.
struct TrackLayout {
    /// What would go wrong: dropped slices, improper nesting, unbound flows.
    var problems: [String] = []
    /// Flow id → (index of the event its start binds to, index of the event its end binds to).
    var flows: [UInt64: (from: Int?, to: Int?)] = [:]

    init(_ trace: TraceFile) {
        struct Open { var index: Int; var start: Int64; var end: Int64; var dur: Int64 }
        let events = trace.events
        let timed = events.indices.filter { i in
            let ph = events[i]["ph"] as? String
            return events[i]["tid"] != nil && (ph == "X" || ph == "s" || ph == "f" || (ph == "i" && events[i]["s"] as? String == "t"))
        }
        let order = timed.enumerated().sorted { a, b in
            let ta = TraceFile.nanos(events[a.element]["ts"]) ?? 0, tb = TraceFile.nanos(events[b.element]["ts"]) ?? 0
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map(\.element)
        var stacks: [String: [Open]] = [:]
        for i in order {
            let e = events[i]
            let track = "\(e["pid"] ?? 0)/\(e["tid"] ?? 0)"
            let ts = TraceFile.nanos(e["ts"]) ?? 0
            var stack = stacks[track] ?? []
            switch e["ph"] as? String {
            case "s":
                guard let id = (e["id"] as? NSNumber)?.uint64Value else { problems.append("flow start \(i) without id"); continue }
                if flows[id]?.from != nil { problems.append("flow \(id) starts twice") }
                flows[id, default: (nil, nil)].from = stack.last?.index
                if stack.isEmpty { problems.append("flow start \(i) has no enclosing slice") }
            case "f":
                guard let id = (e["id"] as? NSNumber)?.uint64Value else { problems.append("flow end \(i) without id"); continue }
                if flows[id]?.from == nil { problems.append("flow \(id) ends before it starts") }
                if e["bp"] as? String != "e" { problems.append("flow end \(i) does not bind to its enclosing slice") }
                flows[id, default: (nil, nil)].to = stack.last?.index
            default:
                let dur = e["ph"] as? String == "X" ? (TraceFile.nanos(e["dur"]) ?? 0) : 0
                while let top = stack.last, top.end < ts || (top.end == ts && !(top.dur == 0 && dur == 0)) {
                    stack.removeLast()
                }
                if stack.contains(where: { $0.end < ts }) {
                    problems.append("event \(i) (\(e["name"] ?? "")) at \(ts) finds an ended slice under an open one on \(track)")
                }
                if let parent = stack.first(where: { ts < $0.end && ts + dur > $0.end }) {
                    problems.append("slice \(i) (\(e["name"] ?? "") \(TraceFile.stage(e) ?? 0)) would be dropped: it overlaps "
                        + "slice \(parent.index) (\(events[parent.index]["name"] ?? "")) on \(track)")
                    stacks[track] = stack
                    continue
                }
                stack.append(Open(index: i, start: ts, end: ts + dur, dur: dur))
            }
            stacks[track] = stack
        }
    }
}
