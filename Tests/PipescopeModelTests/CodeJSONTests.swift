import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// `code`, `built_by` and the lints' and verdicts' `at` in `snapshot --json` and
/// `explain --json`, on a graph whose code places arrived after its stages (as a probe
/// sends them).
final class CodeJSONTests: XCTestCase {
    private static let map = SourceLocation(file: "/src/Feed/Feed.swift", line: 91, function: "closure #2 in Feed.start()",
                                            image: "FeedApp", offset: 0x2000)
    private static let flatMap = SourceLocation(file: "/src/Feed/Feed.swift", line: 40,
                                                function: "closure #1 in Feed.search()", image: "FeedApp", offset: 0x3000)
    private static let api = SourceLocation(file: "/src/Feed/API.swift", line: 12, function: "API.search(_:)",
                                            image: "FeedApp", offset: 0x4000)

    /// Map(1) → Sink made at Feed.swift:88, its subject (2); FlatMap(3) → Sink made at
    /// Feed.swift:30, its subject (4), a Future (5) made inside it (sent at Feed.swift:50)
    /// and a Deferred (6) made by API.search.
    private func graph() -> Graph {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88))
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Map")
        b.subscribe(3, op: "FlatMap", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 30))
        b.subscribe(4, parent: 3, op: "PassthroughSubject", subscriber: "FlatMap")
        b.subscribe(5, parent: 3, op: "Future", subscriber: "FlatMap", location: BatchBuilder.at("Feed.swift", 50))
        b.subscribe(6, parent: 3, op: "Deferred", subscriber: "FlatMap", location: BatchBuilder.at("Feed.swift", 50))
        var first = b.build()
        first.codes = [StageCode(node: 1, code: Self.map), StageCode(node: 3, code: Self.flatMap),
                       StageCode(node: 6, code: Self.api, builtBy: Self.api)]
        return Graph.folding(first)
    }

    private func nodes(_ text: String) throws -> [Int: [String: Any]] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let list = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! Int, $0) })
    }

    private func place(_ value: Any?) -> String {
        guard let l = value as? [String: Any] else { return "null" }
        return l.keys.sorted().map { "\($0)=\(l[$0]!)" }.joined(separator: " ")
    }

    func testEveryNodeHasCodeAndBuiltByKeys() throws {
        let graph = graph()
        let nodes = try nodes(SnapshotJSON.render(graph))
        XCTAssertEqual(place(nodes[1]?["code"]),
                       "file=/src/Feed/Feed.swift function=closure #2 in Feed.start() line=91")
        XCTAssertEqual(place(nodes[2]?["code"]), "null", "a subject runs none of the program's code")
        XCTAssertEqual(place(nodes[2]?["built_by"]), "null")
        XCTAssertEqual(place(nodes[5]?["code"]), "null", "a Future keeps no closure")
        XCTAssertEqual(place(nodes[5]?["built_by"]),
                       "file=/src/Feed/Feed.swift function=closure #1 in Feed.search() line=40 transform=1")
        XCTAssertEqual(place(nodes[6]?["built_by"]),
                       "file=/src/Feed/API.swift function=API.search(_:) line=12 transform=0")
        XCTAssertEqual(place(nodes[4]?["built_by"]), "null", "made in its downstream's subscribe: no builder")
        for node in nodes.values {
            XCTAssertTrue(node.keys.contains("code") && node.keys.contains("built_by"), "\(node)")
        }
    }

    func testALintsAtIsTheCodeWhenTheCodeIsTheMistakeElseWhereItWasSubscribed() throws {
        let graph = graph()
        let lints = [Lint(kind: .stalled, node: 5, message: "waits"), Lint(kind: .stalled, node: 6, message: "waits"),
                     Lint(kind: .unretainedCancellable, node: 1, message: "dropped")]
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(SnapshotJSON.render(graph, lints: lints).utf8))
            as? [String: Any])
        let found = try XCTUnwrap(document["lints"] as? [[String: Any]])
        XCTAssertEqual(found.map { place($0["at"]) }, [
            "file=/src/Feed/Feed.swift function=closure #1 in Feed.search() line=40",
            "file=/src/Feed/API.swift function=API.search(_:) line=12",
            "file=/src/Feed/Feed.swift function=Feed.start() line=88",
        ])
        XCTAssertEqual(found.map { $0["node"] as? Int }, [5, 6, 1], "beside the node")
    }

    func testExplainGivesEachWaitingPipelineTheLineToChange() throws {
        let graph = graph()
        let future = Wait(reason: .upstream, at: 5, sinceNanos: BatchBuilder.baseNanos)
        XCTAssertEqual(future.lineToChange(in: graph)?.line, 40)
        let held = Wait(reason: .demand, at: 1, sinceNanos: BatchBuilder.baseNanos)
        XCTAssertEqual(held.lineToChange(in: graph)?.line, 88, "a subscriber that asks for nothing: where it was subscribed")
    }

    func testCodeFoundLaterReachesTheHistorysEarlierGraphs() {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88))
        var later = EventBatch()
        later.codes = [StageCode(node: 1, code: Self.map)]
        later.trailer.sequence = 1
        let graph = Graph.folding(b.build(), later)
        XCTAssertEqual(graph[1]?.code, Self.map)
        XCTAssertEqual(graph[1]?.info.code, Self.map, "and the node info a snapshot sends")
    }
}
