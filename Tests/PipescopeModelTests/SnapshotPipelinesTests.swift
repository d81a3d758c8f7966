import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// `snapshot --json`'s `pipelines`: the pipelines table's rows, keyed by its columns.
final class SnapshotPipelinesTests: XCTestCase {
    let second: Int64 = 1_000_000_000

    /// Sink ← Map(1) ← Subject(2) made at Feed.swift:88, which delivers two values;
    /// Sink ← Debounce(3), no location, finished; Assign ← Filter(10) ← Just(11).
    private func batch() -> EventBatch {
        var b = BatchBuilder(start: BatchBuilder.baseNanos, step: 1_000_000)
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88))
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Map")
        b.subscribe(3, op: "Debounce", subscriber: "Sink")
        b.chain(from: 10, subscriber: "Assign", ops: ["Filter", "Just"])
        b.subscription(2)
        b.subscription(1)
        b.value(1)
        b.value(1)
        b.finish(3)
        return b.build()
    }

    private func pipelines(_ graph: Graph, lints: [Lint] = []) throws -> [[String: Any]] {
        let text = SnapshotJSON.render(graph, lints: lints)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try XCTUnwrap(document["pipelines"] as? [[String: Any]])
    }

    func testOnePipelinePerRootKeyedByTheColumns() throws {
        let rows = try pipelines(Graph.folding(batch()))
        XCTAssertEqual(rows.map { $0["id"] as? Int }, [1, 3, 10], "no rates in a snapshot: RATE ties, so by id")
        let keys = Set(TableColumn.allCases.compactMap(\.jsonKey))
        XCTAssertEqual(keys, ["warnings", "id", "name", "location", "status", "waitSeconds", "stages", "rate", "values",
                              "slowestNanos", "createdNanos", "lastEventNanos"])
        for row in rows {
            XCTAssertEqual(Set(row.keys), keys, "\(row)")
            XCTAssertEqual(row["rate"] as? Double, 0, "a snapshot has no event history")
        }
    }

    func testTheValuesAreTheTablesRows() throws {
        let graph = Graph.folding(batch())
        let rows = try pipelines(graph)
        let first = rows[0]
        XCTAssertEqual(first["name"] as? String, "Feed.start → PassthroughSubject → Map → Sink", "named after its builder")
        XCTAssertEqual(first["location"] as? String, "Feed.swift:88")
        XCTAssertEqual(first["status"] as? String, "active")
        XCTAssertEqual(first["stages"] as? Int, 2)
        XCTAssertEqual(first["values"] as? Int, 2)
        XCTAssertEqual(first["warnings"] as? Int, 0)
        XCTAssertEqual((first["createdNanos"] as? NSNumber)?.int64Value, graph[1]?.createdNanos)
        XCTAssertEqual((first["lastEventNanos"] as? NSNumber)?.int64Value, graph[1]?.lastValueNanos,
                       "its newest event: the second value")
        XCTAssertTrue(rows[1]["location"] is NSNull, "no location: null, not an empty text")
        XCTAssertEqual(rows[1]["status"] as? String, "finished")
        XCTAssertEqual(rows[2]["name"] as? String, "Just → Filter → Assign")

        // The table on screen, fed the same events, has the same rows (its rates aside).
        var state = AppState(targetName: "t")
        _ = reduce(&state, .attached(process: "t", pid: 1))
        _ = reduce(&state, .batch(batch()))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 2 * second))
        let table = state.table.rows.sorted { $0.id < $1.id }
        XCTAssertEqual(table.count, rows.count)
        for (row, json) in zip(table, rows) {
            XCTAssertEqual(json["id"] as? Int, Int(row.id))
            XCTAssertEqual(json["name"] as? String, row.name.text)
            XCTAssertEqual(json["status"] as? String, row.status.rawValue)
            XCTAssertEqual(json["stages"] as? Int, row.stages)
            XCTAssertEqual(json["values"] as? Int, row.values)
            XCTAssertEqual((json["createdNanos"] as? NSNumber)?.int64Value, row.createdNanos)
        }
    }

    func testWaitSecondsAreEachPipelinesWaitToTheMillisecond() throws {
        let graph = Graph.folding(batch())
        XCTAssertFalse(try pipelines(graph).isEmpty)
        XCTAssertTrue(try pipelines(graph).allSatisfy { $0["waitSeconds"] is NSNull }, "no verdicts passed: null")
        let lastValue = try XCTUnwrap(graph[1]?.lastValueNanos)
        let now = lastValue + 12 * second + 345_678_901
        let text = SnapshotJSON.render(graph, waits: Waits(graph, now: now, after: 2))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(document["pipelines"] as? [[String: Any]])
        // 1: its Sink never asked (held on demand since its last value); 3: finished;
        // 10: asked for unlimited from the Just, which sent nothing since.
        XCTAssertEqual(rows.map { $0["id"] as? Int }, [1, 3, 10])
        XCTAssertEqual(rows[0]["waitSeconds"] as? Double, 12.345)
        XCTAssertTrue(rows[1]["waitSeconds"] is NSNull, "an ended pipeline does not wait")
        // The pipeline's wait began when its root (the Filter) asked.
        let asked = try XCTUnwrap(graph[10]?.recentRequests.first?.time)
        XCTAssertEqual(rows[2]["waitSeconds"] as? Double, Double((now - asked) / 1_000_000) / 1000)
    }

    func testWarningsCountTheLintsOnAPipelinesStages() throws {
        let lint = Lint(kind: .unretainedCancellable, node: 2, message: "store it")
        let rows = try pipelines(Graph.folding(batch()), lints: [lint])
        XCTAssertEqual(rows.map { $0["warnings"] as? Int }, [1, 0, 0], "stage 2 is in pipeline 1")
    }

    func testWithoutPipelinesTheListIsEmpty() throws {
        XCTAssertEqual(try pipelines(Graph()).count, 0)
    }
}
