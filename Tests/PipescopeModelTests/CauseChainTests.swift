import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Chains built on synthetic histories: every hop's stage, value, thread and time, the
/// gaps the text shows, a collect's inputs, and chains that end early say why.
final class CauseChainTests: XCTestCase {
    /// Events numbered as the history numbers a single batch (`build()` sets the
    /// sequence to the count): the nth event is #n.
    struct Caused {
        var b = BatchBuilder(step: 40_000)

        /// Adds a caused event and returns its number.
        @discardableResult
        mutating func add(_ kind: EventKind, _ node: NodeID, _ text: String = "", cause: EventID = 0,
                          thread: String = "main", cancel: CancelCause? = nil) -> EventID {
            b.add(kind, node) {
                $0.text = text
                $0.causedBy = cause
                $0.thread = thread
                $0.cause = cancel
            }
            return EventID(b.batch.events.count)
        }

        func history(recent: [StageEvent] = [], sequence: UInt64? = nil) -> (History, Graph) {
            var history = History()
            var graph = Graph()
            history.reset(to: graph, recent: recent)
            history.append(b.build(sequence: sequence), folding: &graph)
            return (history, graph)
        }
    }

    /// `subject.receive(on: worker).map { $0 * 2 }.sink`: Map (1, root) ← ReceiveOn (2)
    /// ← PassthroughSubject (3); 23 sent on main, 2.1 ms later on worker 1.
    private func receiveOn() -> (History, Graph, [EventID]) {
        var c = Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])
        let sent = c.add(.value, 3, "23")
        c.b.now += 2_100_000
        let hopped = c.add(.value, 2, "23", cause: sent, thread: "worker 1")
        let mapped = c.add(.value, 1, "46", cause: hopped, thread: "worker 1")
        let (history, graph) = c.history()
        return (history, graph, [mapped, hopped, sent])
    }

    func testAChainFollowsCausesBackAcrossAThreadHop() throws {
        let (history, graph, ids) = receiveOn()
        let chain = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: history, graph: graph))
        XCTAssertEqual(chain.hops.map(\.id), ids)
        XCTAssertEqual(chain.hops.map(\.stage), [1, 2, 3])
        XCTAssertEqual(chain.hops.map(\.operatorName), ["Map", "ReceiveOn", "PassthroughSubject"])
        XCTAssertEqual(chain.hops.map(\.value), ["46", "23", "23"])
        XCTAssertEqual(chain.hops.map(\.thread), ["worker 1", "worker 1", "main"])
        XCTAssertEqual(chain.hops.map(\.position), [history.end, history.end - 1, history.end - 2])
        XCTAssertEqual(chain.hops[0].time - chain.hops[1].time, 40_000)
        XCTAssertEqual(chain.hops[1].time - chain.hops[2].time, 2_140_000)
        XCTAssertEqual(chain.end, .origin)
        XCTAssertEqual(CauseChainText.line(chain),
                       "Sink got 46 ← Map 23→46 ← ReceiveOn 23 (2.1 ms, thread worker 1) ← PassthroughSubject sent 23 on main")
        XCTAssertEqual(CauseChainText.lines(chain), [
            "Sink got 46",
            "← Map #1  23→46  thread worker 1  +40 µs",
            "← ReceiveOn #2  23  thread worker 1  +2.1 ms",
            "← PassthroughSubject #3  sent 23 on main  thread main",
            "Origin: PassthroughSubject #3, no recorded cause before it",
        ])
    }

    /// The chain of an event picked by position is the same as the stage's last value's,
    /// and an event in the middle starts there.
    func testAChainStartsAtAnyPosition() throws {
        let (history, graph, ids) = receiveOn()
        let middle = try XCTUnwrap(CauseChain.at(history.end - 1, in: history, graph: graph))
        XCTAssertEqual(middle.hops.map(\.id), Array(ids.dropFirst()))
        XCTAssertEqual(CauseChainText.line(middle), "Map got 23 ← ReceiveOn 23 (2.1 ms, thread worker 1) ← PassthroughSubject sent 23 on main")
        XCTAssertEqual(history.position(ofEvent: ids[2]), history.end - 2)
        XCTAssertNil(history.position(ofEvent: 999))
        XCTAssertNil(CauseChain.lastValue(of: 4, upTo: nil, in: history, graph: graph), "no such stage, no value")
    }

    /// The JSON form: the stage, its value, the chain newest first starting with the
    /// stage itself, times in nanoseconds since 1970.
    func testTheJSONFormListsEveryHop() throws {
        let (history, graph, _) = receiveOn()
        let chain = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: history, graph: graph))
        let t = chain.hops.map(\.time)
        XCTAssertEqual(t[2], BatchBuilder.baseNanos + 9 * 40_000 + 2_100_000 - 2_100_000)
        XCTAssertEqual(CauseChainJSON.render(chain), """
            {"chain":[\
            {"kind":"value","operator":"Map","stage":1,"thread":"worker 1","time":\(t[0]),"value":"46"},\
            {"kind":"value","operator":"ReceiveOn","stage":2,"thread":"worker 1","time":\(t[1]),"value":"23"},\
            {"kind":"value","operator":"PassthroughSubject","stage":3,"thread":"main","time":\(t[2]),"value":"23"}\
            ],"end":"origin","stage":1,"value":"46"}
            """)
    }

    /// collect(3): its output lists the 3 inputs it gathered since its previous output,
    /// not the 3 before, and the chain goes on from the last of them.
    func testACollectOfThreeListsItsThreeInputs() throws {
        var c = Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["CollectByCount", "PassthroughSubject"])
        var firstRound: [EventID] = []
        for v in ["7", "8", "9"] { firstRound.append(c.add(.value, 2, v)) }
        c.add(.value, 1, "[7, 8, 9]", cause: firstRound[2])
        var inputs: [EventID] = []
        for v in ["1", "2", "3"] { inputs.append(c.add(.value, 2, v, thread: "worker \(v)")) }
        let output = c.add(.value, 1, "[1, 2, 3]", cause: inputs[2], thread: "worker 3")
        let (history, graph) = c.history()
        let chain = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: history, graph: graph))
        XCTAssertEqual(chain.hops.map(\.id), [output, inputs[2]])
        let gathered = try XCTUnwrap(chain.hops[0].gathered)
        XCTAssertEqual(gathered.map(\.id), inputs)
        XCTAssertEqual(gathered.map(\.value), ["1", "2", "3"])
        XCTAssertEqual(gathered.map(\.thread), ["worker 1", "worker 2", "worker 3"])
        XCTAssertEqual(gathered.map(\.stage), [2, 2, 2])
        XCTAssertTrue(chain.hops[0].gatheredAll)
        XCTAssertNil(chain.hops[1].gathered, "a subject gathers nothing")
        XCTAssertEqual(CauseChainText.line(chain),
                       "Sink got [1, 2, 3] ← CollectByCount gathered 3 → [1, 2, 3] ← PassthroughSubject sent 3 on worker 3")
        XCTAssertEqual(Array(CauseChainText.lines(chain)[1...4]), [
            "← CollectByCount #1  gathered 3 → [1, 2, 3]  thread worker 3  +40 µs",
            "    gathered 1 from #2, thread worker 1, 120 µs before",
            "    gathered 2 from #2, thread worker 2, 80 µs before",
            "    gathered 3 from #2, thread worker 3, 40 µs before",
        ])
        XCTAssertTrue(CauseChainJSON.render(chain).contains(
            #""gathered":[{"stage":2,"thread":"worker 1","time":\#(gathered[0].time),"value":"1"},"#))
    }

    /// A collect whose previous output is older than the history says its list is not
    /// whole; one that never delivered before lists from its subscribe.
    func testACollectWhoseStartIsNotKeptSaysSo() throws {
        var c = Caused()
        c.b.subscribe(1, op: "Collect", subscriber: "Sink")
        c.b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Collect")
        let a = c.add(.value, 2, "1")
        let out = c.add(.value, 1, "[1]", cause: a)
        let (history, graph) = c.history()
        let whole = try XCTUnwrap(CauseChain.at(history.end, in: history, graph: graph))
        XCTAssertEqual(whole.hops[0].gathered?.map(\.id), [a])
        XCTAssertTrue(whole.hops[0].gatheredAll, "it subscribed inside the history")

        // The same events, the subscribes not kept.
        var late = Caused()
        late.b.batch.nodes = c.b.batch.nodes
        late.b.batch.events = Array(c.b.batch.events.suffix(2))
        late.b.batch.events[1].causedBy = 3
        let (h2, _) = late.history(sequence: 4)
        let partial = try XCTUnwrap(CauseChain.at(h2.end, in: h2, graph: graph))
        XCTAssertEqual(partial.hops.map(\.id), [out, a])
        XCTAssertFalse(partial.hops[0].gatheredAll)
        XCTAssertEqual(CauseChainText.line(partial),
                       "Sink got [1] ← Collect gathered 1+ → [1] ← PassthroughSubject sent 1 on main")
    }

    /// A cause older than the history ends the chain with a mark, never silently; the
    /// probe's recent causes (from a snapshot) carry it on.
    func testACauseOlderThanTheHistoryIsMarked() throws {
        var c = Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        c.add(.value, 1, "46", cause: 50)  // the 7th event of a batch numbered from 94: #100, cause #50
        let (history, graph) = c.history(sequence: 100)
        XCTAssertEqual(history.firstID, 94)
        let chain = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: history, graph: graph))
        XCTAssertEqual(chain.hops.map(\.id), [100])
        XCTAssertEqual(chain.end, .earlierThanHistory(50))
        XCTAssertEqual(CauseChainText.line(chain), "Sink got 46 ← Map 46 ← #50: earlier than the history kept")
        XCTAssertEqual(CauseChainText.lines(chain).last, "Earlier than the history kept: its cause #50 is no longer kept")
        XCTAssertTrue(CauseChainJSON.render(chain).hasSuffix(#""earlierID":50,"end":"earlier than the history kept","stage":1,"value":"46"}"#))

        var sent = StageEvent(.value, node: 2, time: BatchBuilder.baseNanos - 5_000_000, text: "23")
        (sent.id, sent.thread) = (50, "main")
        let (withRecent, _) = c.history(recent: [sent], sequence: 100)
        let longer = try XCTUnwrap(CauseChain.lastValue(of: 1, upTo: nil, in: withRecent, graph: graph))
        XCTAssertEqual(longer.hops.map(\.id), [100, 50])
        XCTAssertEqual(longer.hops.map(\.position), [withRecent.end, nil])
        XCTAssertEqual(longer.end, .origin)
        XCTAssertEqual(CauseChainText.line(longer), "Sink got 46 ← Map 23→46 (5.2 ms) ← PassthroughSubject sent 23 on main")
    }

    /// Evicted causes: past the history's limit the oldest events go, and a chain that
    /// reaches them is marked.
    func testAnEvictedCauseIsMarked() throws {
        var c = Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        let first = c.add(.value, 2, "0")
        for i in 1..<1_500 { c.add(.value, 2, "\(i)") }
        c.add(.value, 1, "0", cause: first)
        var history = History()
        history.limit = 600
        var graph = Graph()
        history.append(c.b.build(), folding: &graph)
        XCTAssertGreaterThan(history.firstID ?? 0, first)
        let chain = try XCTUnwrap(CauseChain.at(history.end, in: history, graph: graph))
        XCTAssertEqual(chain.end, .earlierThanHistory(first))
        XCTAssertEqual(chain.hops.count, 1)
    }

    /// The sink cancels inside the value it got: Map's cancel, then the subject's, chain
    /// back through that delivery to the send.
    func testACancelChainsBackToTheStageThatCancelled() throws {
        var c = Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        let sent = c.add(.value, 2, "5")
        let got = c.add(.value, 1, "10", cause: sent)
        let sinkCancel = c.add(.cancelled, 1, cause: got, cancel: .downstream)
        let upstream = c.add(.cancelled, 2, cause: sinkCancel, cancel: .downstream)
        let (history, graph) = c.history()
        let chain = try XCTUnwrap(CauseChain.at(history.end, in: history, graph: graph))
        XCTAssertEqual(chain.hops.map(\.id), [upstream, sinkCancel, got, sent])
        XCTAssertEqual(chain.hops.map(\.kind), [.cancelled, .cancelled, .value, .value])
        XCTAssertEqual(chain.hops.map(\.value), [nil, nil, "10", "5"])
        XCTAssertEqual(CauseChainText.line(chain),
                       "PassthroughSubject cancelled ← Map cancelled ← Map 5→10 ← PassthroughSubject sent 5 on main")
        XCTAssertTrue(CauseChainJSON.render(chain).hasPrefix(
            #"{"chain":[{"kind":"cancelled","operator":"PassthroughSubject","stage":2,"thread":"main","time":\#(chain.hops[0].time),"value":null}"#))
    }

    /// An origin, a kind without causes, and a recording without numbers each say so.
    func testChainsThatCannotGoBackSayWhy() throws {
        var c = Caused()
        c.b.chain(from: 1, subscriber: "Sink", ops: ["Just"])
        c.add(.value, 1, "1")
        let (history, graph) = c.history()
        let origin = try XCTUnwrap(CauseChain.at(history.end, in: history, graph: graph))
        XCTAssertEqual(origin.end, .origin)
        XCTAssertEqual(CauseChainText.line(origin), "Sink got 1 ← Just sent 1 on main")
        XCTAssertEqual(CauseChainText.endLine(origin), "Origin: no recorded cause (Just sent it by itself)")

        let request = try XCTUnwrap(CauseChain.at(history.end - 1, in: history, graph: graph))
        XCTAssertEqual(request.end, .kindHasNoCause)
        XCTAssertEqual(CauseChainText.endLine(request), "A request event records no cause")

        let (old, oldGraph) = c.history(sequence: 0)  // a recording from before events were numbered
        let unnumbered = try XCTUnwrap(CauseChain.at(old.end, in: old, graph: oldGraph))
        XCTAssertEqual(unnumbered.end, .notRecorded)
        XCTAssertNil(old.firstID)
    }
}
