import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Locations in the model: the `/` filter finds stages by where they were made, and
/// `snapshot --json` carries `location`, `frames` and `locationFrom` on every stage.
final class LocationModelTests: XCTestCase {
    /// Sink ← Map(1) ← Subject(2) made at Feed.swift:88; Sink ← Filter(3) ← Subject(4)
    /// made at Feed.swift:120; Sink ← Debounce(5) with no location.
    private func batch() -> EventBatch {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88),
                    frames: [BatchBuilder.at("App.swift", 12, "App.run()")])
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Map")
        b.subscribe(3, op: "Filter", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 120, "Feed.search()"))
        b.subscribe(4, parent: 3, op: "PassthroughSubject", subscriber: "Filter")
        b.subscribe(5, op: "Debounce", subscriber: "Sink")
        return b.build()
    }

    private func filtered(_ text: String) -> AppState {
        var s = AppState(targetName: "t")
        _ = reduce(&s, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&s, .attached(process: "t", pid: 1))
        _ = reduce(&s, .batch(batch()))
        _ = reduce(&s, .action(.startFilter))
        for c in text { _ = reduce(&s, .action(.filterType(c))) }
        _ = reduce(&s, .action(.filterAccept))
        return s
    }

    func testTheFilterMatchesAFileAndItsPipelines() {
        XCTAssertEqual(filtered("Feed.swift").tree.matches, [1, 2, 3, 4], "roots and the stages they made")
        XCTAssertEqual(filtered("Feed.swift").tree.rows.map(\.id), [1, 2, 3, 4])
    }

    func testTheFilterMatchesAFileAndLine() {
        XCTAssertEqual(filtered("Feed.swift:88").tree.matches, [1, 2])
        XCTAssertEqual(filtered("feed.swift:120").tree.matches, [3, 4], "case-insensitive")
        XCTAssertEqual(filtered("/src/Feed/Feed.swift:120").tree.matches, [3, 4], "the whole path too")
    }

    func testTheFilterMatchesTheFunction() {
        XCTAssertEqual(filtered("search()").tree.matches, [3, 4])
    }

    func testTheJSONCarriesOwnAndInheritedLocationsAndCallers() throws {
        let text = SnapshotJSON.render(Graph.folding(batch()))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        func node(_ id: Int) -> [String: Any] { nodes.first { $0["id"] as? Int == id }! }

        func fields(_ location: Any?) -> [String] {
            guard let l = location as? [String: Any] else { return [] }
            return l.keys.sorted().map { "\($0)=\(l[$0]!)" }
        }
        let root = node(1)
        XCTAssertEqual(fields(root["location"]), ["file=/src/Feed/Feed.swift", "function=Feed.start()", "line=88"])
        XCTAssertEqual((root["frames"] as? [Any])?.map(fields),
                       [["file=/src/Feed/App.swift", "function=App.run()", "line=12"]])
        XCTAssertEqual(root["locationFrom"] as? Int, 1)

        let upstream = node(2)
        XCTAssertEqual((upstream["location"] as? [String: Any])?["line"] as? Int, 88, "its pipeline's")
        XCTAssertEqual(upstream["locationFrom"] as? Int, 1)
        XCTAssertEqual((upstream["frames"] as? [Any])?.count, 1)

        let none = node(5)
        XCTAssertTrue(none["location"] is NSNull)
        XCTAssertTrue(none["locationFrom"] is NSNull)
        XCTAssertEqual((none["frames"] as? [Any])?.count, 0)
    }

    func testWithoutDebugInformationTheJSONNamesTheImage() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Just", subscriber: "Sink",
                    location: SourceLocation(function: "Feed.start()", image: "FeedApp", offset: 0x2f10))
        b.subscribe(2, op: "Just", subscriber: "Sink", location: SourceLocation(image: "FeedApp", offset: 0x2f40))
        let text = SnapshotJSON.render(Graph.folding(b.build()))
        let nodes = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["nodes"]
                                    as? [[String: Any]])
        let noLine = try XCTUnwrap(nodes[0]["location"] as? [String: Any])
        XCTAssertTrue(noLine["file"] is NSNull)
        XCTAssertTrue(noLine["line"] is NSNull)
        XCTAssertEqual(noLine["function"] as? String, "Feed.start()")
        XCTAssertEqual(noLine["image"] as? String, "FeedApp")
        XCTAssertNil(noLine["offset"], "the function says where")
        let stripped = try XCTUnwrap(nodes[1]["location"] as? [String: Any])
        XCTAssertEqual(stripped["image"] as? String, "FeedApp")
        XCTAssertEqual(stripped["offset"] as? String, "0x2f40")
    }
}
