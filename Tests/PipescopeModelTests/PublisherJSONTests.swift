import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeWire
import XCTest

/// `publisher`, `samePublisher`, `subjectSource` and `madeFor` in `snapshot --json`, on
/// real OpenCombine pipelines: a search (a subject of queries flatMapped to a `Future`
/// each) and one `Deferred` request subscribed twice.
final class PublisherJSONTests: RecordedProbeTestCase {
    /// The four keys of every node, by id, as compact JSON with sorted keys.
    private func publisherKeys(_ json: String) throws -> [NodeID: String] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        var found: [NodeID: String] = [:]
        for node in nodes {
            let id = try XCTUnwrap(node["id"] as? Int)
            var keys: [String: Any] = [:]
            for key in ["publisher", "samePublisher", "subjectSource", "madeFor"] {
                keys[key] = try XCTUnwrap(node[key], "\(key) missing on node \(id)")
            }
            let data = try JSONSerialization.data(withJSONObject: keys, options: [.sortedKeys, .withoutEscapingSlashes])
            found[NodeID(id)] = String(decoding: data, as: UTF8.self)
        }
        return found
    }

    /// A publisher's number as the JSON gives it: null for 0 (none).
    private func number(_ publisher: UInt64) -> String { publisher == 0 ? "null" : "\(publisher)" }

    private func stages(_ graph: Graph, _ operatorName: String) -> [NodeSummary] {
        graph.nodes.values.filter { $0.operatorName == operatorName }.sorted { $0.id < $1.id }
    }

    func testEachNodeSaysWhichPublisherItCameFromAndWhatItWasMadeFor() throws {
        _ = search(sending: ["s", "shoe"], answering: [])
        // The closures hold something (as a real request's do): a closure that holds
        // nothing has no context, so its Deferred gives no identity.
        let requests = PendingRequests()
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }
        request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        request.map { $0 * 2 }.sink { _ in }.store(in: &kept)
        recorder.flush()
        let graph = probe.graph
        let keys = try publisherKeys(SnapshotJSON.render(graph))

        let subject = try XCTUnwrap(stages(graph, "PassthroughSubject").first)
        XCTAssertNotEqual(subject.publisher, 0)
        XCTAssertEqual(keys[subject.id],
                       "{\"madeFor\":null,\"publisher\":\(subject.publisher),\"samePublisher\":[],\"subjectSource\":true}")
        let flatMap = try XCTUnwrap(stages(graph, "FlatMap").first)
        XCTAssertEqual(keys[flatMap.id], "{\"madeFor\":null,\"publisher\":null,\"samePublisher\":[],\"subjectSource\":false}")

        let futures = stages(graph, "Future").filter { $0.parent == flatMap.id }
        XCTAssertEqual(futures.count, 2)
        let inputs = try XCTUnwrap(flatMap.innerAnswers?.inputs)
        XCTAssertEqual(inputs.map(\.value), [.text("s"), .text("shoe")])
        for (future, input) in zip(futures, inputs) {
            XCTAssertEqual(future.madeFor, input.event)
            XCTAssertEqual(keys[future.id], "{\"madeFor\":{\"event\":\(input.event),\"value\":\"\(input.value.text)\"},"
                + "\"publisher\":\(number(future.publisher)),\"samePublisher\":[],\"subjectSource\":false}")
        }

        let deferreds = stages(graph, "Deferred")
        XCTAssertEqual(deferreds.count, 2)
        let (first, second) = (deferreds[0], deferreds[1])
        XCTAssertNotEqual(first.publisher, 0)
        XCTAssertEqual(first.publisher, second.publisher, "one Deferred, subscribed twice")
        XCTAssertEqual(requests.promises.count, 2, "the request ran twice")
        XCTAssertEqual(keys[first.id], "{\"madeFor\":null,\"publisher\":\(first.publisher),\"samePublisher\":[\(second.id)],"
            + "\"subjectSource\":false}")
        XCTAssertEqual(keys[second.id], "{\"madeFor\":null,\"publisher\":\(first.publisher),\"samePublisher\":[\(first.id)],"
            + "\"subjectSource\":false}")
    }

    /// From a snapshot taken after both futures answered (out of order) and ended: the
    /// words of the values they were made for come with the flatMap's late answer.
    func testASnapshotKeepsTheWordsOfALateAnswersTwoValues() throws {
        _ = search(sending: ["s", "shoe"], answering: ["shoe", "s"])
        recorder.flush()
        var graph = Graph()
        graph.load(try GraphSnapshot(wire: probe.snapshot().wire))
        let futures = stages(graph, "Future")
        XCTAssertEqual(futures.map(\.status), [.finished, .finished])
        XCTAssertEqual(graph[try XCTUnwrap(futures.first?.parent)]?.innerAnswers?.inputs, [], "none awaited")
        let keys = try publisherKeys(SnapshotJSON.render(graph))
        for (future, words) in zip(futures, ["s", "shoe"]) {
            XCTAssertEqual(keys[future.id], "{\"madeFor\":{\"event\":\(future.madeFor),\"value\":\"\(words)\"},"
                + "\"publisher\":\(number(future.publisher)),\"samePublisher\":[],\"subjectSource\":false}")
        }
    }

    /// An inner publisher whose value was not described: `madeFor` names the event, its
    /// `value` null.
    func testAnUndescribedValueIsMadeForByNumberOnly() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<Query, Never>()
        queries.flatMap { server.search($0.text) }.sink { _ in }.store(in: &kept)
        recorder.flush()
        probe.captureNoValues()
        queries.send(Query(text: "s"))
        recorder.flush()
        let graph = probe.graph
        let future = try XCTUnwrap(stages(graph, "Future").first)
        XCTAssertNotEqual(future.madeFor, 0)
        XCTAssertEqual(try publisherKeys(SnapshotJSON.render(graph))[future.id],
                       "{\"madeFor\":{\"event\":\(future.madeFor),\"value\":null},\"publisher\":\(number(future.publisher)),"
                       + "\"samePublisher\":[],\"subjectSource\":false}")
    }

    /// A subject subscribed by a pile-up: each of its 40 stages lists the oldest 16 others,
    /// not all 39 (at 10,000 that would be 10⁸ ids).
    func testSamePublisherListsTheOldestSixteen() throws {
        let bus = PassthroughSubject<Int, Never>()
        for _ in 0..<40 { bus.sink { _ in }.store(in: &kept) }
        recorder.flush()
        let graph = probe.graph
        let subjects = stages(graph, "PassthroughSubject")
        XCTAssertEqual(subjects.count, 40)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(SnapshotJSON.render(graph).utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        let last = try XCTUnwrap(nodes.first { $0["id"] as? Int == Int(subjects[39].id) })
        XCTAssertEqual(last["samePublisher"] as? [Int], subjects.prefix(16).map { Int($0.id) })
        XCTAssertEqual(graph.samePublisher(as: subjects[39].id).count, 39, "the graph itself knows them all")
    }
}
