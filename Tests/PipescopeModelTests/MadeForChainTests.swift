import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeRecording
import PipescopeWire
import XCTest

/// Chains across inner subscriptions, end to end: an inner publisher's value that came
/// later, on another thread, goes on through the upstream value it was made for
/// (``NodeInfo/madeFor``), in the text `e` and `explain` show and in `explain --json`.
final class MadeForChainTests: RecordedProbeTestCase {
    /// The recording so far, replayed into an inspector's state.
    private func replay() throws -> AppState {
        recorder.flush()
        var state = AppState(targetName: "made for")
        var reader = WireStreamReader()
        let data = FileManager.default.contents(atPath: recorder.path) ?? Data()
        for message in try RecordingFormat.read(data).messages {
            switch message.body {
            case .snapshot(let s)?: _ = reduce(&state, .snapshot(try reader.snapshot(s)))
            case .packed(let p)?: _ = reduce(&state, .batch(try reader.batch(p)))
            default: break
            }
        }
        return state
    }

    private func stages(_ op: String, in graph: Graph) -> [NodeID] {
        graph.nodes.values.filter { $0.operatorName == op }.map(\.id).sorted()
    }

    /// The chain's line without its measured gaps (`(1.2 ms, thread q)` reads `(thread q)`).
    private func line(_ chain: CauseChain) -> String {
        CauseChainText.line(chain)
            .replacingOccurrences(of: #"\d+(\.\d)? (µs|ms|s|min), "#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #" \(\d+(\.\d)? (µs|ms|s|min)\)"#, with: "", options: .regularExpression)
    }

    func testAFuturesAnswerGoesOnThroughTheQueryItWasMadeFor() throws {
        _ = search(sending: ["s", "shoe"], answering: ["shoe", "s"])
        let state = try replay()
        let graph = state.cursor.graph
        let flatMap = try XCTUnwrap(stages("FlatMap", in: graph).first)
        let subject = try XCTUnwrap(stages("PassthroughSubject", in: graph).first)
        let futures = stages("Future", in: graph)
        XCTAssertEqual(futures.count, 2)
        XCTAssertEqual(futures.map { graph[$0]?.madeFor != 0 }, [true, true])
        XCTAssertEqual(graph[subject]?.madeFor, 0, "the outer upstream is made for nothing")
        let chain = try XCTUnwrap(CauseChain.lastValue(of: flatMap, upTo: nil, in: state.cursor.log, graph: graph))
        let worker = chain.hops[1].thread
        XCTAssertEqual(line(chain), "Sink got results for s ← FlatMap results for s ← Future results for s, "
            + "made for PassthroughSubject's value \"s\" (thread \(worker)) ← PassthroughSubject sent s on main")
        XCTAssertEqual(chain.hops.map(\.stage), [flatMap, futures[0], subject])
        XCTAssertEqual(chain.hops[1].madeFor, CauseHop.MadeFor(stage: futures[0], event: chain.hops[2].id))
        XCTAssertEqual(chain.end, .origin)
        let lines = CauseChainText.lines(chain)
        XCTAssertEqual(lines[3], "    Future #\(futures[0]), made for PassthroughSubject's value \"s\"")
        XCTAssertEqual(lines.last, "Origin: PassthroughSubject #\(subject), no recorded cause before it")
        let json = CauseChainJSON.render(chain)
        XCTAssertTrue(json.contains(#""madeFor":{"event":\#(chain.hops[2].id),"stage":\#(futures[0])}"#), json)
    }

    /// `Future.map` inside the flatMap: the Map is the stage subscribed during the
    /// delivery, and the Future's value finds what it was made for there.
    func testAnInnerPipelineRecordsItAtItsDownstreamEnd() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        queries.flatMap { server.search($0).map { $0.uppercased() } }.sink { _ in }.store(in: &kept)
        queries.send("s")
        server.answer("s")
        let state = try replay()
        let graph = state.cursor.graph
        let map = try XCTUnwrap(stages("Map", in: graph).first)
        let future = try XCTUnwrap(stages("Future", in: graph).first)
        XCTAssertNotEqual(graph[map]?.madeFor, 0)
        XCTAssertEqual(graph[future]?.madeFor, 0, "subscribed inside the Map's subscribe")
        let chain = try XCTUnwrap(CauseChain.lastValue(of: map, upTo: nil, in: state.cursor.log, graph: graph))
        XCTAssertEqual(chain.hops.map(\.operatorName), ["Map", "Future", "PassthroughSubject"])
        XCTAssertEqual(chain.hops[1].madeFor?.stage, map)
        XCTAssertEqual(CauseChainText.lines(chain)[3],
                       "    Future #\(future), made for PassthroughSubject's value \"s\" (by #\(map), downstream of it)")
    }

    /// switchToLatest subscribes its inner while its upstream delivers the publisher:
    /// the chain goes on through that value, and back through the query mapped into it.
    func testSwitchToLatestsInnerGoesOnThroughThePublisherValue() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        queries.map { server.search($0) }.switchToLatest().sink { _ in }.store(in: &kept)
        queries.send("shoe")
        server.answer("shoe")
        let state = try replay()
        let graph = state.cursor.graph
        let future = try XCTUnwrap(stages("Future", in: graph).first)
        let chain = try XCTUnwrap(CauseChain.lastValue(of: future, upTo: nil, in: state.cursor.log, graph: graph))
        XCTAssertEqual(chain.hops.map(\.operatorName), ["Future", "Map", "PassthroughSubject"])
        XCTAssertNotNil(chain.hops[0].madeFor)
        XCTAssertEqual(chain.end, .origin)
        XCTAssertEqual(chain.hops.last?.value, "shoe")
    }

    /// A subject's value is sent by the program: its chain ends there even inside an
    /// inner pipeline (the subscription was made for a value, the value was not).
    func testASubjectsValueInsideAnInnerIsItsOwnOrigin() throws {
        let rooms = PassthroughSubject<String, Never>()
        let chosen = PassthroughSubject<String, Never>()
        chosen.flatMap { _ in rooms }.sink { _ in }.store(in: &kept)
        chosen.send("a")
        rooms.send("hello")
        let state = try replay()
        let graph = state.cursor.graph
        let inner = try XCTUnwrap(stages("PassthroughSubject", in: graph).last)
        XCTAssertNotEqual(graph[inner]?.madeFor, 0)
        let chain = try XCTUnwrap(CauseChain.lastValue(of: inner, upTo: nil, in: state.cursor.log, graph: graph))
        XCTAssertEqual(chain.hops.count, 1)
        XCTAssertNil(chain.hops[0].madeFor)
        XCTAssertEqual(chain.end, .origin)
    }

    /// A recording made before stages carried it reads as made for nothing: the chain
    /// stops at the inner publisher, as it did.
    func testAStageWithoutItStopsAtItsOrigin() throws {
        var graph = Graph()
        graph.insert(NodeInfo(id: 1, operatorName: "FlatMap", publisherType: "", subscriber: "Sink", thread: "main",
                              createdNanos: 0))
        graph.insert(NodeInfo(id: 2, parent: 1, operatorName: "Future", publisherType: "", subscriber: "Side",
                              thread: "main", createdNanos: 0))
        var answer = StageEvent(.value, node: 2, time: 10, text: "r")
        answer.id = 7
        var history = History()
        history.reset(to: graph, recent: [answer])
        let chain = CauseChain.from(answer, position: nil, in: history, graph: graph)
        XCTAssertEqual(chain.hops.count, 1)
        XCTAssertEqual(chain.end, .origin)
    }
}
