import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// Where stages were made: a stage shows its own location, or the nearest downstream
/// stage's; and what a location says when the binary had less to say.
final class GraphLocationTests: XCTestCase {
    /// Sink ← FlatMap(1) ← Subject(2), and two inner Futures (3 with its own location,
    /// 4 without) under the FlatMap; Sink ← Map(5) made elsewhere.
    private func graph() -> Graph {
        var b = BatchBuilder()
        b.subscribe(1, op: "FlatMap", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 40),
                    frames: [BatchBuilder.at("App.swift", 9, "App.run()")])
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "FlatMap")
        b.subscribe(3, parent: 1, op: "Future", subscriber: "FlatMap", location: BatchBuilder.at("Feed.swift", 61, "Feed.tick()"))
        b.subscribe(4, parent: 1, op: "Future", subscriber: "FlatMap")
        b.subscribe(5, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Other.swift", 7))
        return Graph.folding(b.build())
    }

    func testAStageWithoutItsOwnShowsItsPipelines() {
        let g = graph()
        XCTAssertEqual(g.location(of: 1), StageLocation(location: BatchBuilder.at("Feed.swift", 40),
                                                        frames: [BatchBuilder.at("App.swift", 9, "App.run()")],
                                                        from: 1, isInherited: false))
        XCTAssertEqual(g.location(of: 2)?.location.short, "Feed.swift:40")
        XCTAssertEqual(g.location(of: 2)?.from, 1)
        XCTAssertEqual(g.location(of: 2)?.isInherited, true)
        XCTAssertEqual(g.location(of: 3)?.location.short, "Feed.swift:61", "an inner publisher's own")
        XCTAssertEqual(g.location(of: 3)?.isInherited, false)
        XCTAssertEqual(g.location(of: 4)?.location.short, "Feed.swift:40", "an inner without one: its pipeline's")
        XCTAssertEqual(g.location(of: 5)?.location.short, "Other.swift:7")
        XCTAssertNil(g.location(of: 99))
    }

    func testALocationFoundLaterIsFoldedIntoItsStage() {
        var g = Graph.folding(BatchFixtures.realisticBatch())
        let before = g
        let later = EventBatch(locations: [
            LocatedStage(node: 1, location: BatchBuilder.at("Feed.swift", 40), frames: [BatchBuilder.at("App.swift", 9)]),
            LocatedStage(node: 999, location: BatchBuilder.at("Gone.swift", 1)),
        ], trailer: BatchTrailer(sequence: before.sequence))
        g.fold(later)
        XCTAssertEqual(g[1]?.location, BatchBuilder.at("Feed.swift", 40))
        XCTAssertEqual(g[1]?.frames, [BatchBuilder.at("App.swift", 9)])
        XCTAssertEqual(g.location(of: 2)?.from, 1, "its upstream stages find it")
        XCTAssertNil(g[999], "a stage no longer there (pruned) is not made up")
        XCTAssertEqual(g.nodes.count, before.nodes.count)
        XCTAssertEqual(g.sequence, before.sequence, "a location is not an event")
    }

    func testStagesWithoutAnyLocationHaveNone() {
        let g = Graph.folding(BatchFixtures.realisticBatch())
        XCTAssertFalse(g.nodes.isEmpty)
        XCTAssertTrue(g.nodes.keys.allSatisfy { g.location(of: $0) == nil })
    }

    func testAnAdoptedStageTakesItsNewPipelines() {
        var b = BatchBuilder()
        b.subscribe(1, op: "SubscribeOn", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 5))
        b.subscribe(2, op: "PassthroughSubject", subscriber: "Inner")
        b.add(.adopt, 2) { $0.other = 1 }
        XCTAssertEqual(Graph.folding(b.build()).location(of: 2)?.location.short, "Feed.swift:5")
    }

    func testWhatALocationSaysWithLessDebugInformation() {
        let full = BatchBuilder.at("Feed.swift", 88)
        XCTAssertEqual(full.short, "Feed.swift:88")
        XCTAssertEqual(full.fileName, "Feed.swift")
        XCTAssertNil(full.missingLineReason)

        let noDebugInfo = SourceLocation(function: "Feed.start()", image: "FeedApp", offset: 0x2f10)
        XCTAssertEqual(noDebugInfo.short, "Feed.start()")
        XCTAssertEqual(noDebugInfo.missingLineReason,
                       "no line: FeedApp was built without debug information")

        let stripped = SourceLocation(image: "FeedApp", offset: 0x2f40)
        XCTAssertEqual(stripped.short, "FeedApp+0x2f40")
        XCTAssertEqual(stripped.missingLineReason, "no symbols: FeedApp is stripped, only the address is known")

        XCTAssertEqual(SourceLocation(file: "", line: 0, function: ""), SourceLocation(),
                       "empty fields from the wire are absent")
    }
}
