import Foundation
import PipescopeExport
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// A recording of known pipelines, exported and checked against the Chrome trace event
/// format and against what the recording says happened.
final class ExportFormatTests: XCTestCase {
    private var directory: String!
    private var trace: TraceFile!
    private var result: RecordingExport.Result!
    private let reference = KnownPipelines.graph()
    /// Trace time 0: the first event of the first batch.
    private let origin = BatchBuilder.baseNanos

    override func setUpWithError() throws {
        directory = makeTemporaryDirectory()
        let path = directory + "/known.pipescope"
        try KnownPipelines.write(to: path)
        (trace, result) = try TraceFile.export(path)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// When the recording ends: its last event.
    private var lastEvent: Int64 { KnownPipelines.batches().last!.events.last!.time }

    func testTheDocumentIsATraceObject() throws {
        XCTAssertEqual(result.stop, .complete)
        for event in trace.events {
            let ph = try XCTUnwrap(event["ph"] as? String)
            XCTAssertTrue(["X", "i", "s", "f", "C", "M"].contains(ph), "\(event)")
            XCTAssertNotNil(event["name"] as? String, "\(event)")
            XCTAssertEqual(event["pid"] as? Int, Int(KnownPipelines.pid), "one process: the recorded program")
            if ph != "M" {
                let ts = try XCTUnwrap((event["ts"] as? NSNumber)?.doubleValue, "\(event)")
                XCTAssertGreaterThanOrEqual(ts, 0, "microseconds from the recording's start")
            }
            if ph == "i" { XCTAssertNotNil(event["s"] as? String, "an instant says its scope") }
        }
        let process = trace.named("process_name", ph: "M")
        XCTAssertEqual(process.count, 1)
        XCTAssertEqual(TraceFile.arg(process[0], "name") as? String, KnownPipelines.process)
        let other = try XCTUnwrap(trace.document["otherData"] as? [String: Any])
        XCTAssertEqual(other["stopped"] as? String, "the recording is complete")
    }

    /// Every stage has exactly one complete slice; its `dur` is its lifetime in µs
    /// (nanoseconds as decimals), unless the slice says why it is not (and then its
    /// args carry the lifetime).
    func testEveryStageHasOneSliceAsLongAsItsLife() throws {
        let slices = trace.slicesByStage
        XCTAssertEqual(Set(slices.keys), Set(reference.nodes.keys))
        for (id, node) in reference.nodes {
            let mine = try XCTUnwrap(slices[id])
            XCTAssertEqual(mine.count, 1, "stage \(id): one slice")
            let slice = mine[0]
            XCTAssertEqual(slice["name"] as? String, node.operatorName)
            let end = node.endedNanos ?? lastEvent
            let lifetime = end - node.createdNanos
            let dur = try XCTUnwrap(TraceFile.nanos(slice["dur"]))
            if TraceFile.arg(slice, "slice_start") == nil && TraceFile.arg(slice, "slice_end") == nil {
                XCTAssertEqual(dur, lifetime, "stage \(id): dur is its lifetime")
                XCTAssertEqual(TraceFile.nanos(slice["ts"]), node.createdNanos - origin, "stage \(id) starts when it subscribed")
            } else {
                XCTAssertEqual(TraceFile.nanos(TraceFile.arg(slice, "lifetime_us")), lifetime, "stage \(id): lifetime in args")
                XCTAssertLessThan(dur, lifetime)
            }
            let status = try XCTUnwrap(TraceFile.arg(slice, "status") as? String)
            XCTAssertTrue(status.contains(node.status.rawValue), "stage \(id): \(status)")
            XCTAssertEqual(TraceFile.arg(slice, "cause") as? String, node.cause?.rawValue)
            XCTAssertEqual(TraceFile.arg(slice, "values") as? Int, node.values)
            XCTAssertEqual(TraceFile.arg(slice, "demand") as? String, node.requested.description)
        }
    }

    /// The slices a cancel cuts, the stage live before the recording, and the stages
    /// live at its end say so.
    func testSlicesThatAreNotALifetimeSayWhy() throws {
        let slices = trace.slicesByStage
        for id: NodeID in [22, 7, 31] {  // reached by a cancel after their downstream ended
            let slice = try XCTUnwrap(slices[id]?.first)
            XCTAssertNotNil(TraceFile.arg(slice, "slice_end") as? String, "stage \(id)")
            let downstream = try XCTUnwrap(slices[reference[id]!.parent!]?.first)
            XCTAssertEqual((TraceFile.nanos(slice["ts"]) ?? 0) + (TraceFile.nanos(slice["dur"]) ?? 0),
                           (TraceFile.nanos(downstream["ts"]) ?? 0) + (TraceFile.nanos(downstream["dur"]) ?? 0),
                           "stage \(id) is cut at its downstream's end")
        }
        let before = try XCTUnwrap(slices[60]?.first)
        XCTAssertEqual(TraceFile.nanos(before["ts"]), 0, "a stage live before the recording starts with it")
        XCTAssertEqual(TraceFile.nanos(before["dur"]), lastEvent - origin)
        XCTAssertEqual(TraceFile.arg(before, "values_before_recording") as? Int, 10)
        XCTAssertEqual(TraceFile.nanos(TraceFile.arg(before, "lifetime_us")), lastEvent - reference[60]!.createdNanos)
        for id: NodeID in [20, 60] {
            let slice = try XCTUnwrap(slices[id]?.first)
            XCTAssertEqual(TraceFile.arg(slice, "live_at_end") as? Bool, true, "stage \(id) was live at the end")
        }
        XCTAssertNil(TraceFile.arg(slices[10]![0], "live_at_end"))
        XCTAssertNotNil(TraceFile.arg(slices[20]![0], "orphaned"), "the inspector's cancel orphaned 20")
    }

    /// One "value" instant per value a stage received while recorded, on its track.
    func testValueInstantsCountTheValuesEachStageReceived() throws {
        let values = trace.named("value")
        let tidOf = trace.slicesByStage.mapValues { $0[0]["tid"] as? Int }
        var counts: [NodeID: Int] = [:]
        for value in values {
            let id = try XCTUnwrap(TraceFile.stage(value))
            counts[id, default: 0] += 1
            XCTAssertEqual(value["tid"] as? Int, tidOf[id] ?? nil, "stage \(id)'s values are on its track")
        }
        for (id, node) in reference.nodes {
            let before = id == 60 ? 10 : 0
            XCTAssertEqual(counts[id] ?? 0, node.values - before, "stage \(id)")
        }
        XCTAssertEqual(counts[40], 1, "the AnyPublisher mirrors its Just's value")
        XCTAssertEqual(result.summary.values, values.count)
        let texts = Set(values.compactMap { TraceFile.arg($0, "value") as? String })
        XCTAssertTrue(texts.isSuperset(of: ["10", "50", "a", "b", "\"x\"", "tick"]), "\(texts)")
        XCTAssertEqual(trace.named("request").count, 14)
        XCTAssertEqual(trace.named("finished").count, 6, "12, 11, 10, 41 and its mirror 40, 50")
        XCTAssertEqual(trace.named("failed").count, 1)
    }

    /// Every flow start has one end with the same id, and the arrows go from the stage
    /// that cancelled to each stage the cancel reached.
    func testCancelArrowsPairUpFromTheCancellerToEachStageReached() throws {
        let starts = trace.phase("s"), ends = trace.phase("f")
        XCTAssertEqual(starts.count, ends.count)
        let startIDs = starts.compactMap { ($0["id"] as? NSNumber)?.uint64Value }
        let endIDs = ends.compactMap { ($0["id"] as? NSNumber)?.uint64Value }
        XCTAssertEqual(Set(startIDs).count, startIDs.count, "flow ids are unique")
        XCTAssertEqual(Set(startIDs), Set(endIDs), "every start has its end")
        for (s, f) in zip(starts.sorted { id($0) < id($1) }, ends.sorted { id($0) < id($1) }) {
            XCTAssertEqual(s["name"] as? String, f["name"] as? String, "a flow's ends share name and category")
            XCTAssertEqual(s["cat"] as? String, f["cat"] as? String)
            XCTAssertLessThanOrEqual(TraceFile.nanos(s["ts"]) ?? 0, TraceFile.nanos(f["ts"]) ?? 0)
        }
        // Bound as Perfetto binds them: each end of an arrow to a cancel instant.
        let layout = TrackLayout(trace)
        var arrows = Set<KnownPipelines.Arrow>()
        for (flow, ends) in layout.flows {
            let from = try XCTUnwrap(ends.from.map { trace.events[$0] }, "flow \(flow) starts on a slice")
            let to = try XCTUnwrap(ends.to.map { trace.events[$0] }, "flow \(flow) ends on a slice")
            XCTAssertEqual(from["ph"] as? String, "i")
            XCTAssertTrue(["cancelled", "cancels upstream", "cancel (continued)"].contains(from["name"] as? String ?? ""), "\(from)")
            XCTAssertEqual(to["name"] as? String, "cancelled")
            arrows.insert(.init(from: try XCTUnwrap(TraceFile.stage(from)), to: try XCTUnwrap(TraceFile.stage(to))))
        }
        XCTAssertEqual(arrows, KnownPipelines.expectedArrows)
        XCTAssertEqual(result.summary.flows, KnownPipelines.expectedArrows.count)
        let inspector = starts.filter { $0["name"] as? String == "inspector cancel" }
        XCTAssertEqual(inspector.count, 1, "the inspector's cancel is its own kind of arrow")
        XCTAssertEqual(trace.named("cancel (continued)").count, 1, "30's cancel reached 31 in the next batch")
        XCTAssertEqual(trace.named("cancelled").count, 10, "1 2 3, 21 22, 7, 4 5, 30 31: each once")
    }

    /// Perfetto would drop nothing: on every track, slices nest or are disjoint.
    func testEveryTrackNestsAsPerfettoNeeds() {
        XCTAssertEqual(TrackLayout(trace).problems, [])
    }

    /// A pipeline is a track named after its operators; an upstream live beside another
    /// goes on a branch track; upstream stages nest under their downstream.
    func testTracksArePipelinesNamedByTheirChain() throws {
        let slices = trace.slicesByStage
        func tid(_ id: NodeID) -> Int? { slices[id]?.first?["tid"] as? Int }
        XCTAssertEqual(tid(1), tid(2))
        XCTAssertEqual(tid(2), tid(3))
        XCTAssertEqual(tid(10), tid(11))
        XCTAssertNotEqual(tid(10), tid(12), "12 is live beside 11: a branch track")
        XCTAssertNotEqual(tid(1), tid(10))
        let names = trace.threadNames
        XCTAssertEqual(names[tid(1)!], "#1 PassthroughSubject → Map → Filter → Sink")
        XCTAssertEqual(names[tid(10)!], "#10 PassthroughSubject → Merge → Sink")
        XCTAssertEqual(names[tid(12)!], "#10 PassthroughSubject → Merge → Sink · branch 1")
        XCTAssertEqual(Set(trace.phase("X").compactMap { $0["tid"] as? Int }), Set(names.keys), "every track is named")
        XCTAssertEqual(result.summary.pipelines, 9)
    }

    func testLintsAreInstantsWithTheirMessage() throws {
        let lint = try XCTUnwrap(trace.named("lint: demand-violation").first)
        XCTAssertEqual(TraceFile.stage(lint), 50)
        XCTAssertEqual(lint["tid"] as? Int, trace.slicesByStage[50]?.first?["tid"] as? Int)
        XCTAssertTrue((TraceFile.arg(lint, "message") as? String)?.contains("3 values delivered but only 1 requested") == true)
    }

    func testDroppedEventsAreACounter() throws {
        let samples = trace.phase("C").filter { $0["name"] as? String == "events lost" }
        XCTAssertEqual(samples.compactMap { TraceFile.arg($0, "dropped") as? Int }, [0, 5])
        XCTAssertEqual(TraceFile.nanos(samples[1]["ts"]), KnownPipelines.batches()[1].events.last!.time - origin)
    }

    private func id(_ event: [String: Any]) -> UInt64 { (event["id"] as? NSNumber)?.uint64Value ?? 0 }
}
