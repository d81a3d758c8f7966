import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A snapshot crosses the wire into exactly the graph the probe has.
final class SnapshotCodingTests: XCTestCase {
    /// Every field of every stage survives: statuses, causes, errors, demand, links,
    /// owners, contracts, recent requests.
    func testEveryStageFieldSurvivesTheWire() {
        var b = BatchBuilder()
        BatchFixtures.filterMapSubject(into: &b)
        b.subscribe(10, op: "AnyPublisher", subscriber: "Sink")
        b.subscribe(11, parent: 10, op: "Just", subscriber: "AnyPublisher")
        b.forward(10, to: 11)
        b.add(.owned, 10) { $0.other = 7; $0.text = "ViewModel" }
        b.add(.contractBroken, 11) { $0.text = "finished twice" }
        b.subscription(11)
        b.request(11, .count(2))
        b.demand(11, .count(1))
        b.value(11, "1")
        b.finish(11)
        b.add(.ownerReleased, 0) { $0.other = 7; $0.text = "ViewModel" }
        b.cancel(3, cause: .inspector)
        let graph = Graph.folding(BatchFixtures.realisticBatch(), b.build())
        var snapshot = graph.snapshot()
        snapshot.skippedEvents = 12

        var writer = WireStreamWriter(), reader = WireStreamReader()
        let back = try? reader.snapshot(ServerMessage.decode(payload: writer.message(snapshot).framed().dropFirst(4)).snapshot)
        XCTAssertEqual(back, snapshot)
        var loaded = Graph()
        loaded.load(back ?? GraphSnapshot())
        XCTAssertEqual(loaded, graph)
    }

    /// A snapshot names each held stage's owner twice, in the stage and in its list of
    /// owners; a stage whose owner the list leaves out still comes back with its owner.
    func testEachStageNamesItsOwnerAndBringsItInWhenTheListLacksIt() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "PassthroughSubject", subscriber: "Sink")
        b.add(.owned, 1) { $0.other = 7; $0.text = "ViewModel" }
        let snapshot = Graph.folding(b.build()).snapshot()
        var wire = snapshot.wire
        XCTAssertEqual(wire.nodes.map(\.ownerName), ["ViewModel"])
        XCTAssertEqual(wire.nodes.map(\.owner), [7])

        wire.owners = []
        let back = try GraphSnapshot(wire: wire)
        XCTAssertEqual(back.owners, [7: Owner(id: 7, name: "ViewModel")])
        var loaded = Graph()
        loaded.load(back)
        XCTAssertEqual(loaded.owner(of: 1)?.name, "ViewModel")
    }

    /// A flatMap's record of its answers (NodeState.inner_answers) comes back as it went,
    /// a scalar's words as text (equal to the number); a stage from an older probe, which
    /// has none, reads as none.
    func testAFlatMapsAnswersSurviveTheWire() throws {
        var node = NodeSummary(info: BatchFixtures.info(id: 1, op: "FlatMap", subscriber: "Sink"))
        let s = InnerAnswers.Input(event: 12, value: .text("s"), causedBy: 3)
        let shoe = InnerAnswers.Input(event: 20, value: .int(42))
        node.innerAnswers = InnerAnswers(inputs: [s, InnerAnswers.Input(event: 25)], newest: shoe, lateCount: 2,
                                         lastLate: InnerAnswers.Late(stale: s, fresh: shoe, stage: 5, time: 1_000),
                                         fromCollection: true)
        let bytes: [UInt8] = try node.wire.serializedBytes()
        let back = NodeSummary(wire: try WireNodeState(serializedBytes: bytes))
        XCTAssertEqual(back.innerAnswers, node.innerAnswers)
        XCTAssertEqual(back.innerAnswers?.newest?.value.text, "42")
        XCTAssertEqual(back.innerAnswers?.inputs.map(\.value), [.text("s"), .none])

        var older = node.wire
        older.clearInnerAnswers()
        XCTAssertNil(NodeSummary(wire: older).innerAnswers)
        XCTAssertNil(NodeSummary(wire: NodeSummary(info: BatchFixtures.info(id: 2, op: "Map", subscriber: "Sink")).wire)
            .innerAnswers, "a stage without a record sends none")
    }

    func testFailedStageWithEmptyErrorKeepsAnEmptyError() throws {
        var state = WireNodeState()
        state.info = BatchFixtures.info(id: 1, op: "TryMap", subscriber: "Sink").wire
        state.status = .failed
        var snapshot = WireSnapshot()
        snapshot.nodes = [state]
        var g = Graph()
        g.load(try GraphSnapshot(wire: snapshot))
        XCTAssertEqual(g[1]?.error, "")
        XCTAssertEqual(g[1]?.status, .failed)
    }

    /// The probe's recent caused events cross in a snapshot with their numbers, causes,
    /// threads, texts and cancel causes: ids with gaps, a cause far back, one that caused
    /// itself, two threads, a failure, a finish and cancels by two causes.
    func testRecentCausesSurviveTheWire() throws {
        func event(_ kind: EventKind, _ node: NodeID, id: EventID, cause: EventID, thread: String,
                   text: String = "", cancel: CancelCause? = nil) -> StageEvent {
            var e = StageEvent(kind, node: node, time: BatchBuilder.baseNanos + Int64(id) * 1_000, cause: cancel,
                               text: text)
            e.id = id
            e.causedBy = cause
            e.thread = thread
            return e
        }
        let recent = [
            event(.value, 3, id: 7, cause: 0, thread: "main", text: "23"),
            event(.value, 2, id: 8, cause: 7, thread: "main", text: "46"),
            event(.value, 1, id: 12, cause: 8, thread: "worker 1", text: "a clipped descrip…"),
            event(.failed, 1, id: 13, cause: 12, thread: "worker 1", text: "Oops"),
            event(.finished, 4, id: 40, cause: 1, thread: "main"),
            event(.cancelled, 2, id: 41, cause: 40, thread: "main", cancel: .downstream),
            event(.cancelled, 3, id: 1_000_000, cause: 41, thread: "", cancel: .inspector),
        ]
        var snapshot = Graph.folding(BatchFixtures.realisticBatch()).snapshot()
        snapshot.recent = recent
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let back = try reader.snapshot(ServerMessage.decode(payload: writer.message(snapshot).framed().dropFirst(4)).snapshot)
        XCTAssertEqual(back.recent, recent)
        XCTAssertEqual(back, snapshot)
        XCTAssertEqual(back.recent.map(\.causedBy), [0, 7, 8, 12, 1, 40, 41])
    }

    /// Columns of recent events that disagree are a clear error, not a crash.
    func testRecentColumnsThatDisagreeAreMalformed() {
        var recent = WireRecentEvents()
        recent.idDeltas = [1, 1]
        recent.causeDeltas = [0]
        var snapshot = WireSnapshot()
        snapshot.recent = recent
        XCTAssertThrowsError(try GraphSnapshot(wire: snapshot)) { error in
            XCTAssertEqual("\(error)".contains("recent events"), true, "\(error)")
        }
    }
}
