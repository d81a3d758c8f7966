import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// The `out-of-order` lint on real OpenCombine pipelines: a subject of queries, each
/// flatMapped to a `Future` the test fulfils on another thread in the order it chooses.
/// The mistake is named with both queries; the correct versions, and the fan-outs where
/// order does not matter, stay quiet.
final class OutOfOrderLintTests: RecordedProbeTestCase {
    private func flatMap() throws -> NodeSummary {
        recorder.flush()
        return try XCTUnwrap(probe.graph.nodes.values.filter { $0.operatorName == "FlatMap" }.min { $0.id < $1.id })
    }

    /// The message for `stale` answered after `fresh` on `flatMap`, as the rule words it.
    private func message(_ flatMap: NodeSummary, stale: String, fresh: String, times: String = "") -> String {
        let place = probe.graph.location(of: flatMap.id).map { " at \($0.location.short)" } ?? ""
        return "answered out of order: the answer to \(stale) came after the answer to \(fresh), a newer value\(times). "
            + "flatMap\(place) passes on each inner publisher's values as they come, so a slow answer to an older value "
            + "lands last and replaces the newer one downstream. If only the newest value's answer matters, write "
            + "map { … }.switchToLatest() instead of flatMap { … }: it cancels the older inner publisher. If every answer "
            + "is needed, in order, use flatMap(maxPublishers: .max(1)), with a buffer(size:prefetch:whenFull:) before "
            + "it when the upstream is a subject (a subject drops what it is sent while nobody asks)."
    }

    func testAnOlderQuerysAnswerAfterANewerOnesIsNamedWithBothQueries() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        let shown = Shown()
        queries.flatMap { server.search($0) }.sink { shown.set($0) }.store(in: &kept)
        queries.send("s")
        queries.send("shoe")
        server.answer("shoe")
        XCTAssertEqual(lints(), [], "in order so far")
        server.answer("s")
        XCTAssertEqual(shown.value, "results for s", "the stale answer is what the screen shows")
        let flatMap = try flatMap()
        XCTAssertEqual(lints(), [Lint(kind: .outOfOrder, node: flatMap.id,
                                      message: message(flatMap, stale: "\"s\"", fresh: "\"shoe\""))])
        XCTAssertEqual(lints(linter: Linter(allowed: [.outOfOrder])), [], "-A out-of-order")

        // Again: "sh" then "shoes", the first answering last; counted, the last named.
        queries.send("sh")
        queries.send("shoes")
        server.answer("shoes")
        server.answer("sh")
        XCTAssertEqual(lints().map(\.message), [message(flatMap, stale: "\"sh\"", fresh: "\"shoes\"",
                                                        times: " (2 late answers so far)")])
    }

    func testAnswersInTheOrderOfTheirQueriesAreNot() throws {
        _ = search(sending: ["s", "shoe"], answering: ["s", "shoe"])
        XCTAssertEqual(lints(), [])
        XCTAssertEqual(try flatMap().innerAnswers?.newest?.value, .text("shoe"))
    }

    /// A newer query that has started but not answered makes an older answer nothing
    /// late: the screen shows "s" for a moment, then "shoe". Only a stale answer landing
    /// after a fresh one is the mistake (see ``InnerAnswers``).
    func testAnOlderAnswerWhileANewerQueryIsStillRunningIsNot() throws {
        let (server, _) = search(sending: ["s", "shoe"], answering: ["s"])
        XCTAssertEqual(lints(), [])
        server.answer("shoe")
        XCTAssertEqual(lints(), [])
    }

    /// The fix for the latest answer only: switchToLatest cancels the request for "s"
    /// when "shoe" arrives, so it never answers.
    func testMapAndSwitchToLatestIsNot() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        let shown = Shown()
        queries.map { server.search($0) }.switchToLatest().sink { shown.set($0) }.store(in: &kept)
        queries.send("s")
        queries.send("shoe")
        server.answer("shoe")
        server.answer("s")
        XCTAssertEqual(shown.value, "results for shoe")
        XCTAssertEqual(lints(), [])
        recorder.flush()
        let futures = probe.graph.nodes.values.filter { $0.operatorName == "Future" }.sorted { $0.id < $1.id }
        XCTAssertEqual(futures.map(\.status), [.cancelled, .finished], "the request for s was cancelled")
    }

    /// The fix when every answer is needed, in order: one request at a time, the queries
    /// buffered meanwhile. (Without the buffer, the subject drops "shoe": nobody asked.)
    func testOneRequestAtATimeIsNot() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        let shown = Shown()
        queries.buffer(size: 10, prefetch: .keepFull, whenFull: .dropOldest)
            .flatMap(maxPublishers: .max(1)) { server.search($0) }.sink { shown.set($0) }.store(in: &kept)
        queries.send("s")
        queries.send("shoe")
        server.answer("s")
        server.answer("shoe")
        XCTAssertEqual(shown.all, ["results for s", "results for shoe"])
        XCTAssertEqual(lints(), [])

        let dropped = PassthroughSubject<String, Never>()
        let unbuffered = SearchServer()
        dropped.flatMap(maxPublishers: .max(1)) { unbuffered.search($0) }.sink { _ in }.store(in: &kept)
        dropped.send("s")
        dropped.send("shoe")
        XCTAssertEqual(unbuffered.asked, ["s"], "what the advice's buffer is for")
    }

    /// A fan-out of a collection's elements: none is a newer version of another.
    func testAFanOutOfACollectionIsNot() throws {
        let server = SearchServer()
        ["a", "b", "c"].publisher.flatMap { server.search($0) }.sink { _ in }.store(in: &kept)
        server.answer("c")
        server.answer("a")
        server.answer("b")
        XCTAssertEqual(lints(), [])
    }

    /// Several queries sent inside one delivery (one event fanned out) are siblings.
    func testQueriesSentInsideOneDeliveryAreNot() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        let batches = PassthroughSubject<[String], Never>()
        queries.flatMap { server.search($0) }.sink { _ in }.store(in: &kept)
        batches.sink { $0.forEach(queries.send) }.store(in: &kept)
        batches.send(["a", "b"])
        server.answer("b")
        server.answer("a")
        XCTAssertEqual(lints(), [])
    }

    /// Every answer gathered downstream: none replaces another.
    func testAnswersCollectedDownstreamAreNot() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        queries.flatMap { server.search($0) }.collect(2).sink { _ in }.store(in: &kept)
        queries.send("s")
        queries.send("shoe")
        server.answer("shoe")
        server.answer("s")
        XCTAssertEqual(lints(), [])
    }

    /// Streams joined, not requests made (a room's messages per room): values that flow
    /// whatever the input, not answers to it.
    func testJoinedStreamsAreNot() throws {
        let rooms = ["a": PassthroughSubject<String, Never>(), "b": PassthroughSubject<String, Never>()]
        let chosen = PassthroughSubject<String, Never>()
        chosen.flatMap { rooms[$0]! }.sink { _ in }.store(in: &kept)
        chosen.send("a")
        chosen.send("b")
        rooms["b"]!.send("hello from b")
        rooms["a"]!.send("hello from a")
        XCTAssertEqual(lints(), [])
    }

    /// Values not described are named by their event numbers.
    func testQueriesWithoutWordsAreNamedByTheirNumbers() throws {
        let server = SearchServer()
        let queries = PassthroughSubject<Query, Never>()
        queries.flatMap { server.search($0.text) }.sink { _ in }.store(in: &kept)
        recorder.flush()
        probe.captureNoValues()
        queries.send(Query(text: "s"))
        queries.send(Query(text: "shoe"))
        server.answer("shoe")
        server.answer("s")
        let flatMap = try flatMap()
        let answers = try XCTUnwrap(flatMap.innerAnswers)
        XCTAssertEqual(answers.inputs.map(\.value), [.none, .none])
        let (s, shoe) = (answers.inputs[0].event, answers.inputs[1].event)
        XCTAssertEqual(lints().map(\.message), [message(flatMap, stale: "value #\(s)", fresh: "value #\(shoe)")])
    }
}

/// A query the probe does not describe as a scalar.
struct Query {
    var text: String
}

/// Search requests, each a Future that the test answers on another thread.
extension RecordedProbeTestCase {
    /// A search box: `queries.flatMap { server.search($0) }.sink`, kept; the queries
    /// `sent` in order, then answered in the order of `answers` (the rest stay pending).
    func search(sending sent: [String], answering answers: [String]) -> (SearchServer, PassthroughSubject<String, Never>) {
        let server = SearchServer()
        let queries = PassthroughSubject<String, Never>()
        queries.flatMap { server.search($0) }.sink { _ in }.store(in: &kept)
        for query in sent { queries.send(query) }
        for query in answers { server.answer(query) }
        return (server, queries)
    }
}

final class SearchServer: @unchecked Sendable {
    private let lock = NSLock()
    private var promises: [String: (Result<String, Never>) -> Void] = [:]
    private(set) var asked: [String] = []
    private let network = DispatchQueue(label: "pipescope.test.network")

    func search(_ query: String) -> Future<String, Never> {
        Future { promise in
            self.lock.withLock {
                self.promises[query] = promise
                self.asked.append(query)
            }
        }
    }

    /// Answers `query` on the network queue, and returns once the answer is delivered.
    func answer(_ query: String) {
        guard let promise = lock.withLock({ promises.removeValue(forKey: query) }) else {
            return XCTFail("nobody asked for \(query)")
        }
        let fulfil = UncheckedPromise(fulfil: promise)
        let done = DispatchGroup()
        network.async(group: done) { fulfil.fulfil(.success("results for \(query)")) }
        done.wait()
    }
}

private struct UncheckedPromise: @unchecked Sendable {
    let fulfil: (Result<String, Never>) -> Void
}

/// What the "screen" shows: the last answer, and every answer in order.
final class Shown: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var all: [String] = []
    var value: String? { lock.withLock { all.last } }
    func set(_ text: String) { lock.withLock { all.append(text) } }
}
