import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `pipescope snapshot --json`: parsed back and checked key by key.
final class SnapshotJSONTests: XCTestCase {
    private let nodeKeys: Set<String> = [
        "id", "parent", "operator", "publisherType", "subscriber", "status", "demand", "values", "lastValue",
        "cause", "error", "sharedWith", "orphaned", "feeds", "owner", "location", "frames", "locationFrom", "wait",
        "time", "code", "built_by", "publisher", "samePublisher", "subjectSource", "madeFor",
    ]

    private func parse(_ graph: Graph) throws -> (document: [String: Any], nodes: [[String: Any]]) {
        let text = SnapshotJSON.render(graph)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let document = try XCTUnwrap(object as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        return (document, nodes)
    }

    private func graph() -> Graph {
        var b = BatchBuilder(start: BatchBuilder.baseNanos)
        b.batch = BatchFixtures.realisticBatch()
        b.now = BatchBuilder.baseNanos + 1_000_000_000
        b.subscribe(8, op: "Empty", type: "Empty<Int, Never>", subscriber: "Sink")
        return Graph.folding(b.build(sequence: 40, dropped: 9))
    }

    func testDocumentKeys() throws {
        let (document, nodes) = try parse(graph())
        XCTAssertEqual(Set(document.keys), ["dropped", "nodes", "lints", "pipelines"])
        XCTAssertEqual((document["lints"] as? [Any])?.count, 0, "no lints were passed")
        XCTAssertEqual(document["dropped"] as? Int, 9)
        XCTAssertEqual(nodes.count, 8)
        for node in nodes {
            let root = node["parent"] is NSNull
            XCTAssertEqual(Set(node.keys), nodeKeys.union(root ? ["sinkTime"] : []), "\(node)")
            XCTAssertTrue(node["time"] is NSNull, "nothing was timed")
        }
    }

    /// `time` is a stage's own operator's time per value it received; a root's
    /// `sinkTime` its subscriber's. Stage 2 (Map) received stage 3's values.
    func testTimesAreNanosecondsPerValue() throws {
        var b = BatchBuilder(start: BatchBuilder.baseNanos)
        BatchFixtures.filterMapSubject(into: &b)
        var batch = b.build()
        for i in batch.events.indices where batch.events[i].kind == .value {
            let onSubject = batch.events[i].node == 3
            batch.events[i].selfNanos = onSubject ? 2_000_000 : 1_000
            batch.events[i].totalNanos = onSubject ? 2_100_000 : 1_000
        }
        let (_, nodes) = try parse(Graph.folding(batch))
        let byID = Dictionary(uniqueKeysWithValues: nodes.map { ($0["id"] as! Int, $0) })
        let map = try XCTUnwrap(byID[2]?["time"] as? [String: Any])
        XCTAssertEqual(map["count"] as? Int, 5, "the subject's five values ran the Map's closure")
        XCTAssertEqual(map["max"] as? Int, 2_000_000)
        let p50 = try XCTUnwrap(map["p50"] as? Int)
        XCTAssertLessThan(abs(p50 - 2_000_000), 250_000, "within a bucket (12%)")
        XCTAssertTrue(byID[3]?["time"] is NSNull, "a source receives no values")
        XCTAssertEqual((byID[1]?["sinkTime"] as? [String: Any])?["max"] as? Int, 1_000)
        XCTAssertNil(byID[2]?["sinkTime"], "only roots have a sink")
        // The table's TIME is the costliest code of the pipeline: the Map's.
        let (document, _) = try parse(Graph.folding(batch))
        let pipelines = try XCTUnwrap(document["pipelines"] as? [[String: Any]])
        XCTAssertEqual(pipelines.first?["slowestNanos"] as? Int, p50)
    }

    func testLintsAreListedWithNameNodeAndMessage() throws {
        let lint = Lint(kind: .unretainedCancellable, node: 8, message: "store it")
        let data = Data(SnapshotJSON.render(graph(), lints: [lint]).utf8)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let lints = try XCTUnwrap(document["lints"] as? [[String: Any]])
        XCTAssertEqual(lints.count, 1)
        XCTAssertEqual(lints[0]["lint"] as? String, "unretained-cancellable")
        XCTAssertEqual(lints[0]["node"] as? Int, 8)
        XCTAssertEqual(lints[0]["message"] as? String, "store it")
    }

    func testNodesInIdOrder() throws {
        XCTAssertEqual(try parse(graph()).nodes.map { $0["id"] as? Int }, [1, 2, 3, 4, 5, 6, 7, 8])
    }

    func testRootNode() throws {
        let node = try parse(graph()).nodes[0]
        XCTAssertEqual(node["id"] as? Int, 1)
        XCTAssertTrue(node["parent"] is NSNull, "a root's parent is null, not omitted")
        XCTAssertEqual(node["operator"] as? String, "Filter")
        XCTAssertEqual(node["publisherType"] as? String, "Filter<Map<PassthroughSubject<Int, Never>, Int>>")
        XCTAssertEqual(node["subscriber"] as? String, "Sink")
        XCTAssertEqual(node["status"] as? String, "active")
        XCTAssertEqual(node["demand"] as? [String: String], ["requested": "unlimited", "outstanding": "unlimited"])
        XCTAssertEqual(node["values"] as? Int, 3)
        XCTAssertEqual(node["lastValue"] as? String, "50")
        XCTAssertEqual(node["sharedWith"] as? [Int], [2, 3], "Map and the subject pass the same subscription")
        XCTAssertTrue(node["cause"] is NSNull)
        XCTAssertTrue(node["error"] is NSNull)
        XCTAssertEqual(node["orphaned"] as? Bool, false)
        XCTAssertEqual(node["feeds"] as? [Int], [])
    }

    func testInnerNodeWithCountedDemand() throws {
        let node = try parse(graph()).nodes[4]
        XCTAssertEqual(node["id"] as? Int, 5)
        XCTAssertEqual(node["parent"] as? Int, 4)
        XCTAssertEqual(node["operator"] as? String, "TimerPublisher")
        XCTAssertEqual(node["subscriber"] as? String, "Map")
        XCTAssertEqual(node["status"] as? String, "cancelled")
        XCTAssertEqual(node["demand"] as? [String: Int], ["requested": 3, "outstanding": 2])
        XCTAssertEqual(node["values"] as? Int, 1)
        XCTAssertEqual(node["cause"] as? String, "owner")
    }

    func testFailedNodeAndEscapedValue() throws {
        let nodes = try parse(graph()).nodes
        XCTAssertEqual(nodes[5]["status"] as? String, "failed")
        XCTAssertEqual(nodes[5]["demand"] as? [String: Int], ["requested": 1, "outstanding": 0])
        XCTAssertEqual(nodes[5]["error"] as? String, "ParseError.notANumber(\"x\")")
        XCTAssertEqual(nodes[6]["cause"] as? String, "downstream")
        XCTAssertEqual(nodes[6]["lastValue"] as? String, "\"x\"")
        XCTAssertEqual(nodes[6]["status"] as? String, "cancelled")
    }

    func testAbsentLastValueIsNull() throws {
        let node = try parse(graph()).nodes[7]
        XCTAssertEqual(node["operator"] as? String, "Empty")
        XCTAssertTrue(node["lastValue"] is NSNull, "lastValue is null when no value was seen")
        XCTAssertEqual(node["values"] as? Int, 0)
        XCTAssertEqual(node["status"] as? String, "subscribing")
        XCTAssertEqual(node["demand"] as? [String: Int], ["requested": 0, "outstanding": 0])
    }

    func testEmptyGraph() throws {
        let (document, nodes) = try parse(Graph())
        XCTAssertEqual(document["dropped"] as? Int, 0)
        XCTAssertTrue(nodes.isEmpty)
    }

    func testWaitIsNullWhileFlowingOrEndedAndTheVerdictWhileWaiting() throws {
        // 1 Map ← 2 Future (asked for unlimited, never answers); 3 Silent (never sent a
        // subscription); 4 Sink ← 4 Subject that delivered 1 of .max(1); 6 Just, finished.
        var b = BatchBuilder(start: BatchBuilder.baseNanos, step: 1_000_000)
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Future", subscriber: "Map")
        b.subscription(2)
        b.subscription(1, owner: 2)
        b.request(2, .unlimited)
        b.subscribe(3, op: "Silent", subscriber: "Sink")
        b.subscribe(4, op: "PassthroughSubject", subscriber: "Counter")
        b.subscription(4)
        b.request(4, .count(1))
        b.value(4, "1")
        b.chain(from: 6, subscriber: "Sink", ops: ["Just"])
        b.value(6, "1")
        b.finish(6)
        let graph = Graph.folding(b.build())
        let t0 = BatchBuilder.baseNanos
        let now = t0 + 41_000_000_000
        let text = SnapshotJSON.render(graph, waits: Waits(graph, now: now, after: 2))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        func wait(_ id: Int) -> [String: Any]? { nodes.first { $0["id"] as? Int == id }?["wait"] as? [String: Any] }
        func seconds(since nanos: Int64?) -> Double { Double((now - nanos!) / 1_000_000) / 1000 }

        XCTAssertEqual(wait(1)?["reason"] as? String, "upstream", "the pipeline's verdict, on its root")
        XCTAssertEqual(wait(1)?["at"] as? Int, 2, "the Future holds it")
        XCTAssertEqual(wait(1)?["seconds"] as? Double, seconds(since: graph[2]?.recentRequests.first?.time))
        XCTAssertEqual(wait(2)?["at"] as? Int, 2)
        XCTAssertEqual(wait(3)?["reason"] as? String, "subscription")
        XCTAssertEqual(wait(3)?["at"] as? Int, 3)
        XCTAssertEqual(wait(3)?["seconds"] as? Double, seconds(since: graph[3]?.createdNanos))
        XCTAssertEqual(wait(4)?["reason"] as? String, "demand")
        XCTAssertEqual(wait(4)?["at"] as? Int, 4, "a root held by its own subscriber")
        XCTAssertEqual(wait(4)?["seconds"] as? Double, seconds(since: graph[4]?.lastValueNanos))
        XCTAssertEqual(Set(try XCTUnwrap(wait(4)).keys), ["reason", "seconds", "at"])
        let ended = try XCTUnwrap(nodes.first { $0["id"] as? Int == 6 })
        XCTAssertTrue(ended["wait"] is NSNull, "an ended stage: null, not omitted")

        let flowing = SnapshotJSON.render(graph, waits: Waits(graph, now: t0 + 1_000_000_000, after: 2))
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(flowing.utf8)) as? [String: Any])
        XCTAssertEqual((parsed["nodes"] as? [[String: Any]])?.count, graph.nodes.count)
        XCTAssertTrue((parsed["nodes"] as? [[String: Any]])?.allSatisfy { $0["wait"] is NSNull } == true,
                      "within the threshold nothing waits")
    }

    func testSlashesAndUnicodeAreNotEscaped() {
        var b = BatchBuilder()
        b.subscribe(1, op: "URLSession", type: "DataTaskPublisher", subscriber: "Sink")
        b.value(1, "https://example.com/ä")
        let text = SnapshotJSON.render(Graph.folding(b.build()))
        XCTAssertTrue(text.contains("https://example.com/ä"), text)
    }
}
