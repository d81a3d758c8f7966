import Foundation
import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// Events the probe dropped are counted by pipeline from the batches' trailers, and every
/// text that gives the total says whose they were: `snapshot --json`, `replay --print`,
/// `explain`. A pruned pipeline's count goes with it.
final class DroppedByPipelineTests: XCTestCase {
    let t0 = BatchBuilder.baseNanos
    let second: Int64 = 1_000_000_000

    /// #1 Future → Map → Sink waits, #10 Timer → Sink flows; two batches lost 150 events,
    /// 130 of #1's, 15 of #10's and 5 of stages the probe did not know yet.
    private func graph() -> Graph {
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Future"])
        b.chain(from: 10, subscriber: "Sink", ops: ["Timer"])
        b.value(10)
        var first = b.build(dropped: 100)
        first.trailer.droppedSinceLast = 100
        first.trailer.droppedByPipeline = [1: 90, 10: 10]
        var c = BatchBuilder(start: b.now)
        c.value(10)
        var second = c.build(sequence: first.trailer.sequence + 1, dropped: 150)
        second.trailer.droppedSinceLast = 50
        second.trailer.droppedByPipeline = [1: 40, 10: 5, 0: 5]
        var graph = Graph.folding(first)
        graph.fold(second)
        return graph
    }

    func testTheGraphAddsUpTheBatchesCountsByPipeline() {
        let graph = graph()
        XCTAssertEqual(graph.dropped, 150)
        XCTAssertEqual(graph.droppedByPipeline, [1: 130, 10: 15, 0: 5])
        XCTAssertEqual(graph.pipeline(of: 2), 1, "the Future's pipeline is its root's")
        XCTAssertEqual(graph.pipeline(of: 1), 1)
        XCTAssertNil(graph.pipeline(of: 99))
    }

    func testSnapshotJSONListsThemMostFirstAndLeavesTheKeyOutWhenNone() throws {
        let text = SnapshotJSON.render(graph())
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(document["dropped"] as? Int, 150)
        let drops = try XCTUnwrap(document["droppedByPipeline"] as? [[String: Int]])
        XCTAssertEqual(drops, [["root": 1, "events": 130], ["root": 10, "events": 15], ["root": 0, "events": 5]])
        let none = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(SnapshotJSON.render(Graph()).utf8))
            as? [String: Any])
        XCTAssertNil(none["droppedByPipeline"])
    }

    func testTheTextSaysWhoseAfterTheTotal() {
        XCTAssertEqual(SnapshotText.render(graph(), title: "demo").split(separator: "\n").first,
                       "demo: 3 stages, 150 events dropped (#1: 130, #10: 15, stages not yet known: 5)")
    }

    func testExplainSaysItOnEachPipelineThatLostEvents() throws {
        let graph = graph()
        // Both waited from their last event, a few ms after t0: 9 s (whole seconds, down).
        let report = WaitReport(graph, waits: Waits(graph, now: t0 + 10 * second, after: 2))
        XCTAssertEqual(report.text, """
            #1 Future → Map → Sink  waits ↑ #2 Future 9s  ⚠ 130 events dropped (the probe's buffer was full): what is shown of it misses them
            #10 Timer → Sink  waits ↑ #10 Timer 9s  ⚠ 15 events dropped (the probe's buffer was full): what is shown of it misses them
            """)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        let pipelines = try XCTUnwrap(json["pipelines"] as? [[String: Any]])
        XCTAssertEqual(pipelines.map { $0["dropped"] as? Int }, [130, 15])
    }

    func testAPrunedPipelineTakesItsCountWithIt() {
        var graph = graph()
        var b = BatchBuilder(start: t0 + 2 * second)
        b.cancel(10)
        graph.fold(b.build(sequence: graph.sequence + 1, dropped: 150))
        graph.prune(now: t0 + 3_600 * second, retention: Retention(seconds: 60, maxEndedPipelines: 0))
        XCTAssertNil(graph[10])
        XCTAssertEqual(graph.droppedByPipeline, [1: 130, 0: 5])
    }
}
