import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Values are sampled: "last" is the last value described, says when it came and how many
/// newer ones were not, and a chain names the gap sampling left once.
final class UndescribedValuesTests: XCTestCase {
    func testTheFoldCountsTheValuesNewerThanTheLastDescribed() throws {
        var b = BatchBuilder(step: 1_000_000)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        let described = b.now
        b.value(1, "Reading(kitchen: 21.5)")
        for _ in 0..<3 { b.value(1) }
        var graph = Graph()
        graph.fold(b.build())
        let map = try XCTUnwrap(graph[1])
        XCTAssertEqual(map.values, 3 + 1)
        XCTAssertEqual(map.lastValue, "Reading(kitchen: 21.5)")
        XCTAssertEqual(map.undescribedSince, 3)
        XCTAssertEqual(map.lastDescribedNanos, described, "when the described value came")
        XCTAssertEqual(map.lastValueNanos, described + 3 * 1_000_000, "the newest value, three later")

        var more = BatchBuilder(start: b.now, step: 1_000_000)
        more.value(1, "Reading(kitchen: 22.0)")
        graph.fold(more.build())
        XCTAssertEqual(graph[1]?.undescribedSince, 0)
        XCTAssertEqual(graph[1]?.lastDescribedNanos, graph[1]?.lastValueNanos)
    }

    func testAStageWithNoDescribedValueCountsThemAll() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.value(1)
        b.value(1)
        var graph = Graph()
        graph.fold(b.build())
        XCTAssertNil(graph[1]?.lastValue)
        XCTAssertNil(graph[1]?.lastDescribedNanos)
        XCTAssertEqual(graph[1]?.undescribedSince, 2)
    }

    func testAnOlderRecordingsTextPerBatchIsTheNewestValue() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.value(1)
        b.valueDescribedPerBatch(1, "42")
        var graph = Graph()
        graph.fold(b.build())
        XCTAssertEqual(graph[1]?.lastValue, "42")
        XCTAssertEqual(graph[1]?.undescribedSince, 0)
        XCTAssertEqual(graph[1]?.lastDescribedNanos, graph[1]?.lastValueNanos)
    }

    func testTheCountsTravelInASnapshotAndAnOlderOneReadsWithout() throws {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.value(1, "a")
        b.value(1)
        var graph = Graph()
        graph.fold(b.build())
        let map = try XCTUnwrap(graph[1])
        let back = NodeSummary(wire: map.wire)
        XCTAssertEqual(back.undescribedSince, 1)
        XCTAssertEqual(back.lastDescribedNanos, map.lastDescribedNanos)

        // A stage as a recording made before these fields carries it.
        var older = map.wire
        older.clearLastDescribedNsForTest()
        let old = NodeSummary(wire: older)
        XCTAssertNil(old.lastDescribedNanos)
        XCTAssertEqual(old.undescribedSince, 0)
        XCTAssertEqual(old.lastValue, "a")
    }

    func testTheSnapshotTextAndJSONSayHowStaleLastIs() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.value(1, "a")
        b.value(1)
        b.value(1)
        var graph = Graph()
        graph.fold(b.build())
        let text = SnapshotText.render(graph, title: "t", lints: [])
        XCTAssertTrue(text.contains("values 3  last a (2 newer not described: sampled)"), text)
        let json = SnapshotJSON.render(graph, lints: [], waits: Waits())
        XCTAssertTrue(json.contains("\"undescribedSince\" : 2"), json)
    }

    /// `subject.receive(on: worker).map { … }.sink`: Map (1, root) ← ReceiveOn (2) ←
    /// PassthroughSubject (3); the subject's String described, the struct after it sampled out.
    func testAChainNamesTheGapSamplingLeftOnceNotPerHop() throws {
        var c = CauseChainTests.Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])
        let sent = c.add(.value, 3, "s shoe")
        c.b.now += 2_100_000
        let hopped = c.add(.value, 2, "", cause: sent, thread: "worker 1")
        c.add(.value, 1, "", cause: hopped, thread: "worker 1")
        let (history, graph) = c.history()
        let chain = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: history, graph: graph))
        XCTAssertEqual(CauseChainText.line(chain),
                       "Sink ← Map ← ReceiveOn (2.1 ms, thread worker 1): not described (sampled, 1 value per stage "
                       + "per 25 ms; v describes every value) ← PassthroughSubject sent s shoe on main")
        let lines = CauseChainText.lines(chain)
        XCTAssertFalse(lines.contains { $0.contains("(not described)") }, "\(lines)")
        XCTAssertEqual(Array(lines.prefix(2)), ["Sink got —", "← Map #1  —  thread worker 1  +40 µs"])
        XCTAssertEqual(lines.dropLast().last,
                       "Not described (—) at #1 Map, #2 ReceiveOn: sampled, 1 value per stage per 25 ms; v describes every value")
    }

    func testAChainWithEveryValueDescribedHasNoGap() throws {
        var c = CauseChainTests.Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        let sent = c.add(.value, 2, "23")
        c.add(.value, 1, "46", cause: sent)
        let (history, graph) = c.history()
        let chain = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: history, graph: graph))
        XCTAssertNil(CauseChainText.gapLine(chain))
        XCTAssertEqual(CauseChainText.line(chain), "Sink got 46 ← Map 23→46 ← PassthroughSubject sent 23 on main")
    }
}

private extension WireNodeState {
    /// As a recording written before fields 24 and 25 existed.
    mutating func clearLastDescribedNsForTest() {
        lastDescribedNs = 0
        undescribedSince = 0
    }
}
