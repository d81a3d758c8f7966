import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// A cause and its effect in different batches, as a `receive(on:)` hop makes them: the
/// subject's value is recorded in one batch and the queue delivers it downstream in the
/// next; then the sink cancels at the end of a batch and the cancel reaches the stages
/// upstream in the one after. Both trace formats draw what crosses the batch boundary.
final class CrossBatchCauseTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// 1 Map ← 2 ReceiveOn ← 3 PassthroughSubject, each its own subscription.
    /// Batch 1: the subject's value (the last event, numbered `first.count`).
    /// Batch 2, 200 ms later: the hop delivers it (caused by the subject's value, a batch
    /// earlier), the Map sends it on (caused by that), and the sink cancels the Map.
    /// Batch 3: the cancel reaches the ReceiveOn and the subject.
    private func batches() -> [EventBatch] {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])
        b.value(3, "a value longer than inline")
        let sent = EventID(b.batch.events.count)
        let first = b.build(sequence: sent)

        // The queue delivers 200 ms later: past the walk's lint interval (100 ms), so the
        // end of this batch also prunes what is over, and the Map's cancel, still
        // travelling, must not be among it.
        var c = BatchBuilder(start: b.now + 200_000_000)
        c.add(.value, 2) { $0.text = "a value longer than inline"; $0.causedBy = sent }
        c.add(.value, 1) { $0.text = "a value longer than inline"; $0.causedBy = sent + 1 }
        c.cancel(1)
        let second = c.build(sequence: sent + UInt64(c.batch.events.count))

        var d = BatchBuilder(start: c.now)
        d.cancel(2)
        d.cancel(3)
        let third = d.build(sequence: sent + UInt64(c.batch.events.count + d.batch.events.count))
        return [first, second, third]
    }

    private func record() throws -> String {
        let path = directory + "/hop.pipescope"
        try KnownPipelines.writeRecording(to: path, process: "hop-app", batches: batches())
        return path
    }

    /// Perfetto: an arrow from the subject's value to the hop's delivery a batch later
    /// (``CauseFlows`` keeps the previous batch's events waiting for it), one on to the
    /// Map's, and the sink's cancel arrows to both stages it reached in the next batch.
    func testPerfettoDrawsTheArrowsThatCrossABatch() throws {
        let recording = try record()
        let all = batches()
        let facts = PerfettoFacts.of(process: "hop-app", pid: KnownPipelines.pid, snapshot: GraphSnapshot(),
                                     batches: all, cancelArrows: [[1, 2], [1, 3]])
        XCTAssertEqual(facts.value_arrows, [[3, 2], [2, 1]], "what the recording holds")
        var messages = try RecordingMessages(path: recording, chunkSize: 4096)
        let trace = recording + ".perfetto-trace"
        let result = try RecordingExport.run(&messages, to: trace, source: recording)
        XCTAssertEqual(result.format, .perfetto)
        XCTAssertEqual(result.summary.flows, 4, "two value arrows (one across batches 1 and 2) and two cancel arrows")
        try PerfettoChecker.check(trace, facts)
    }

    /// Chrome's JSON: it draws no value arrows (only Perfetto's format has flows bound
    /// to instants by id), so its effect across batches is the sink's cancel continued
    /// in the next batch, an arrow from the Map to each stage it reached; the hop's
    /// values are each on their own stage, with their text.
    func testChromeJSONDrawsTheCancelThatCrossesABatch() throws {
        let (trace, result) = try TraceFile.export(try record())
        XCTAssertEqual(result.summary.flows, 2)
        let layout = TrackLayout(trace)
        XCTAssertEqual(layout.problems, [])
        var arrows: [[NodeID]] = []
        for (flow, ends) in layout.flows {
            let from = try XCTUnwrap(ends.from.map { trace.events[$0] }, "flow \(flow) starts on an instant")
            let to = try XCTUnwrap(ends.to.map { trace.events[$0] }, "flow \(flow) ends on an instant")
            XCTAssertEqual(to["name"] as? String, "cancelled")
            arrows.append([try XCTUnwrap(TraceFile.stage(from)), try XCTUnwrap(TraceFile.stage(to))])
        }
        XCTAssertEqual(arrows.sorted { "\($0)" < "\($1)" }, [[1, 2], [1, 3]])
        XCTAssertEqual(trace.named("cancel (continued)").count, 1, "the Map's cancel reached 2 and 3 in the next batch")
        let values = trace.named("value").map { TraceFile.stage($0) ?? 0 }
        XCTAssertEqual(values.sorted(), [1, 2, 3], "the value on each stage, the hop's a batch after the subject's")
        XCTAssertEqual(Set(trace.named("value").compactMap { TraceFile.arg($0, "value") as? String }),
                       ["a value longer than inline"])
    }
}
