import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// A pipeline the program did not name is named after the function of the program that
/// built it, then its chain: `FeedModel.init → PassthroughSubject → Sink`.
final class PipelineNameTests: XCTestCase {
    func name(_ function: String?, file: String? = "/src/App/Feed.swift") -> PipelineName {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink",
                    location: SourceLocation(file: file, line: 12, function: function, image: "App"))
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Map")
        return PipelineName(root: 1, in: Graph.folding(b.build()))
    }

    func testTheBuildersFunctionComesBeforeTheChain() {
        XCTAssertEqual(name("FeedModel.init()").parts, ["FeedModel.init", "PassthroughSubject", "Map", "Sink"])
        XCTAssertEqual(name("Basket.open(item:)").text, "Basket.open(item:) → PassthroughSubject → Map → Sink")
        XCTAssertEqual(name("closure #2 in closure #1 in FeedModel.start()").source, "FeedModel.start")
        XCTAssertEqual(name("implicit closure #1 in static Feed.make(id:)").source, "Feed.make(id:)")
        XCTAssertEqual(name("Basket.(refresh in _4F1A2B3C4D5E6F70)()").source, "Basket.refresh")
    }

    func testNoFunctionOrALibrarysIsTheChainAlone() {
        XCTAssertEqual(name(nil).parts, ["PassthroughSubject", "Map", "Sink"])
        XCTAssertEqual(name("Publisher.sink(receiveValue:)",
                            file: "/x/.build/checkouts/OpenCombine/Sources/OpenCombine/Subscribers.Sink.swift").parts,
                       ["PassthroughSubject", "Map", "Sink"])
        XCTAssertEqual(name("Probe.start()", file: "/src/pipescope/Sources/PipescopeProbe/Probe.swift").parts,
                       ["PassthroughSubject", "Map", "Sink"])
    }

    func testPipelinesFromOneFunctionSortTogetherAndKeepItWhenNarrow() {
        let a = name("Basket.open(item:)"), b = name("Feed.start()"), c = name("Basket.open(item:)")
        XCTAssertEqual([b, a, c].sorted { $0.sortKey < $1.sortKey }.map(\.source),
                       ["Basket.open(item:)", "Basket.open(item:)", "Feed.start"])
    }
}
