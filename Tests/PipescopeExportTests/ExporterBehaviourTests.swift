import Foundation
@testable import PipescopeExport
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// The exporter's memory and its track layout, without files.
final class ExporterBehaviourTests: XCTestCase {
    /// Memory follows the live stages, not the events: after thousands of short
    /// pipelines only the long-lived one is open, and the graph holds a short window.
    func testMemoryStaysWithTheLiveStagesNotTheEvents() throws {
        let sink = CountingSink()
        let exporter = TraceWalk(writer: ChromeJSONWriter(sink: sink))
        try exporter.consume(.attached(process: "app", pid: 7))
        var b = BatchBuilder(step: 1_000)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        var next: NodeID = 10
        for round in 0..<200 {
            for _ in 0..<50 {
                b.subscribe(next, op: "Just", subscriber: "Sink")
                b.subscription(next)
                b.request(next, .unlimited)
                b.value(next, "v")
                b.finish(next)
                b.value(2, String(round))
                next += 1
            }
            try exporter.consume(.batch(b.build()))
            b = BatchBuilder(start: b.now + 10_000_000, step: 1_000)  // 10 ms between flushes
        }
        XCTAssertEqual(exporter.openStageCount, 2, "only the long-lived pipeline is open")
        XCTAssertLessThan(exporter.graphStageCount, 2_000, "ended stages are pruned: \(exporter.graphStageCount) of 10,002")
        XCTAssertLessThan(exporter.lanes.placements.count, 10)
        XCTAssertLessThan(exporter.closed.count, 2_000)
        let summary = try exporter.finish()
        XCTAssertEqual(summary.stages, 10_002)
        XCTAssertEqual(summary.pipelines, 10_001)
        XCTAssertEqual(sink.slices, 10_002)
    }

    /// Siblings live at once never share a track; a track freed is reused; a stage whose
    /// downstream ended first is cut at the downstream's end.
    func testLanesKeepSiblingsApartAndReuseFreeTracks() {
        var lanes = LaneBook()
        let (root, _) = lanes.place(1, parent: nil, start: 100, operatorName: "Merge", subscriber: "Sink")
        let (a, aStart) = lanes.place(2, parent: 1, start: 100, operatorName: "A", subscriber: "Merge")
        let (b, _) = lanes.place(3, parent: 1, start: 120, operatorName: "B", subscriber: "Merge")
        XCTAssertEqual(a.tid, root.tid)
        XCTAssertEqual(aStart, 101, "a stage subscribed in its downstream's nanosecond starts 1 ns later")
        XCTAssertNotEqual(b.tid, root.tid)
        XCTAssertEqual(lanes.end(3, at: 150), 150)
        let (c, _) = lanes.place(4, parent: 1, start: 160, operatorName: "C", subscriber: "Merge")
        XCTAssertEqual(c.tid, b.tid, "the free branch track is reused")
        XCTAssertEqual(lanes.end(1, at: 200), 200)
        XCTAssertEqual(lanes.end(2, at: 250), 200, "cut at its downstream's end")
        XCTAssertEqual(lanes.end(4, at: 190), 190)
        let ended = lanes.takeEnded()
        XCTAssertEqual(ended.map(\.ordinal), [1])
        XCTAssertEqual(ended[0].laneCount, 2)
        XCTAssertEqual(TrackNames.name(of: ended[0], root: nil, lane: 1), "#1 A → Merge → Sink · branch 1")
        XCTAssertTrue(lanes.placements.isEmpty)
    }

    func testLongChainsNameTheirSourceAndTheirEnd() {
        var lanes = LaneBook()
        let ops = ["Sink0", "Map", "Filter", "Scan", "Debounce", "ReceiveOn", "HandleEvents", "Timer"]
        for (i, op) in ops.enumerated() {
            _ = lanes.place(NodeID(i + 1), parent: i == 0 ? nil : NodeID(i), start: Int64(i), operatorName: op, subscriber: "Sink")
        }
        let pipeline = lanes.takeAll()[0]
        XCTAssertEqual(TrackNames.name(of: pipeline, root: nil), "#1 Timer → … → Debounce → Scan → Filter → Map → Sink0 → Sink")
    }

    /// A stage live in the first snapshot starts with the recording; one that had ended
    /// is not drawn.
    func testTheFirstSnapshotOpensItsLiveStagesAtTimeZero() throws {
        var before = BatchBuilder(start: BatchBuilder.baseNanos - 5_000_000)
        before.subscribe(1, op: "Timer", subscriber: "Sink")
        before.subscribe(2, op: "Just", subscriber: "Sink")
        before.finish(2)
        let collector = TraceEventCollector()
        let exporter = TraceWalk(writer: ChromeJSONWriter(sink: collector))
        try exporter.consume(.snapshot(Graph.folding(before.build()).snapshot()))
        var b = BatchBuilder()
        b.value(1, "tick")
        try exporter.consume(.batch(b.build()))
        let summary = try exporter.finish()
        XCTAssertEqual(summary.endedBeforeRecording, 1)
        let slices = collector.events.filter { $0.ph == .complete }
        XCTAssertEqual(slices.map(\.name), ["Timer"])
        XCTAssertEqual(slices[0].ts, 0)
        XCTAssertEqual(slices[0].args?["slice_start"], "starts with the recording: the stage subscribed 5.000 ms before it")
    }
}

/// Counts what it is given and keeps nothing.
private final class CountingSink: TraceEventSink {
    var events = 0
    var slices = 0
    func write(_ event: TraceEvent) throws {
        events += 1
        if event.ph == .complete { slices += 1 }
    }
}
