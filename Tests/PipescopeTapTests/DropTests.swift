import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeWire
import XCTest

/// The tap's buffer grows under a burst up to its bound; what does not fit then is counted
/// by stage, the probe says whose pipelines lost it and when, and nothing is dropped
/// silently.
final class DropTests: XCTestCase {
    func testATurnGrowsToItsBoundThenCountsEachDropByStage() {
        var ring = EventRing(capacity: 4, maxCapacity: 16)
        var signals = 0
        for i in 0..<20 {
            var half = false
            _ = ring.append(RawEvent(kind: .value, node: i < 18 ? 1 : 2, time: Int64(100 + i)), halfFull: &half)
            if half { signals += 1 }
        }
        // Half full at 2, then grown to 8 and to 16: each asks for a flush.
        XCTAssertEqual(signals, 3)
        var taken = ring.drain()
        XCTAssertEqual(taken.events.count, 16)
        XCTAssertEqual(ring.dropped, 4)
        XCTAssertEqual(taken.drops.total, 4)
        XCTAssertEqual(taken.drops.byNode, [1: 2, 2: 2])
        XCTAssertEqual(taken.drops.firstTicks, 116, "the first event that did not fit")
        taken.removeAll()
        ring.recycle(&taken)
        // The turn after a full one keeps its room: 16 fit again.
        for i in 0..<16 {
            var half = false
            XCTAssertTrue(ring.append(RawEvent(kind: .value, node: 1, time: Int64(i)), halfFull: &half))
        }
        XCTAssertEqual(ring.drain().drops.total, 0)
        // A quiet turn (one event) starts the next from the capacity again.
        var half = false
        XCTAssertTrue(ring.append(RawEvent(kind: .value, node: 1, time: 0), halfFull: &half))
        _ = ring.drain()
        for i in 0..<4 { XCTAssertTrue(ring.append(RawEvent(kind: .value, node: 1, time: Int64(i)), halfFull: &half)) }
        half = false
        XCTAssertTrue(ring.append(RawEvent(kind: .value, node: 1, time: 4), halfFull: &half))
        XCTAssertTrue(half, "growing past the capacity asks for a flush again")
    }

    func testDropsOfMoreStagesThanItTellsApartAreCountedUnderStageZero() {
        var drops = DroppedEvents()
        for node in 1...UInt64(DroppedEvents.stageLimit + 10) { drops.count(node: node, time: 5) }
        drops.count(node: 1, time: 9)
        XCTAssertEqual(drops.total, UInt64(DroppedEvents.stageLimit + 11))
        XCTAssertEqual(drops.byNode.count, DroppedEvents.stageLimit + 1)
        XCTAssertEqual(drops.byNode[0], 10)
        XCTAssertEqual(drops.byNode[1], 2)
        XCTAssertEqual(drops.firstTicks, 5)
    }

    /// A real pipeline through a probe whose buffer holds 64 events and may not grow: the
    /// batch keeps the first 64, and its trailer says how many more there were, that they
    /// were all pipeline #1's (the other pipeline sent nothing), and when the first was lost.
    func testTheProbeSaysWhosePipelineLostEventsAndWhen() {
        let probe = Probe(bufferCapacity: 64, maxBufferCapacity: 64, locations: false)
        probe.enable()
        defer { probe.disable() }
        let subject = PassthroughSubject<Int, Never>()
        let quiet = PassthroughSubject<Int, Never>()
        let kept = [subject.map { $0 + 1 }.sink { _ in }, quiet.sink { _ in }]
        let before = probe.flush()
        let root = try! XCTUnwrap(probe.graph.roots.first)
        XCTAssertEqual(before.trailer.droppedSinceLast, 0)
        let start = Int64(Date().timeIntervalSince1970 * 1e9)
        for i in 0..<200 { subject.send(i) }
        let end = Int64(Date().timeIntervalSince1970 * 1e9)
        let batch = probe.flush()
        XCTAssertEqual(batch.events.count, 64)
        XCTAssertGreaterThan(batch.trailer.droppedSinceLast, 0)
        XCTAssertEqual(batch.trailer.droppedByPipeline, [root: batch.trailer.droppedSinceLast])
        XCTAssertEqual(batch.trailer.dropped, batch.trailer.droppedSinceLast)
        XCTAssert(start <= batch.trailer.droppedSinceNanos && batch.trailer.droppedSinceNanos <= end,
                  "the first was lost while the values were sent")
        XCTAssertGreaterThanOrEqual(batch.trailer.droppedSinceNanos, batch.events.last!.time,
                                    "after the last event kept")
        XCTAssertEqual(probe.graph.droppedByPipeline, [root: batch.trailer.droppedSinceLast])
        // Every value the subject sent is either in the batch or counted: two events each
        // (the subject's stage and the Map's), and nothing else happened meanwhile.
        let values = batch.events.filter { $0.kind == .value }.count
        XCTAssertEqual(UInt64(values) + batch.trailer.droppedSinceLast, 400)
        let after = probe.flush()
        XCTAssertEqual(after.trailer.droppedSinceLast, 0)
        XCTAssertEqual(after.trailer.droppedByPipeline, [:])
        withExtendedLifetime(kept) {}
    }

    /// An inspector that attaches after the drops learns whose they were from the
    /// snapshot (not only the total), through the wire, and says it.
    func testASnapshotCarriesTheDropsByPipeline() throws {
        let probe = Probe(bufferCapacity: 64, maxBufferCapacity: 64, locations: false)
        probe.enable()
        defer { probe.disable() }
        let subject = PassthroughSubject<Int, Never>()
        let kept = [subject.map { $0 + 1 }.sink { _ in }]
        _ = probe.flush()
        let root = try XCTUnwrap(probe.graph.roots.first)
        for i in 0..<200 { subject.send(i) }
        let lost = probe.flush().trailer.droppedSinceLast
        XCTAssertGreaterThan(lost, 0)
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let payload = writer.message(probe.snapshot()).framed().dropFirst(4)
        let back = try reader.snapshot(ServerMessage.decode(payload: payload).snapshot)
        XCTAssertEqual(back.dropped, lost)
        XCTAssertEqual(back.droppedByPipeline, [root: lost])
        var graph = Graph()
        graph.load(back)
        XCTAssertEqual(graph.droppedByPipeline, [root: lost])
        withExtendedLifetime(kept) {}
    }

    /// A pipeline subscribed while the buffer was full lost its subscribe events: its
    /// later values still show, on stages created from what their events say, in the
    /// probe's graph and in an inspector's that folds the same batches.
    func testTheStagesOfADroppedSubscribeAreCreatedFromTheirEvents() throws {
        let probe = Probe(bufferCapacity: 64, maxBufferCapacity: 64, locations: false)
        probe.enable()
        defer { probe.disable() }
        let subject = PassthroughSubject<Int, Never>()
        var kept = [subject.map { $0 + 1 }.sink { _ in }]
        _ = probe.flush()
        var inspector = Graph()
        inspector.load(probe.snapshot())
        for i in 0..<200 { subject.send(i) }  // the buffer is full from here to the flush
        let late = PassthroughSubject<Int, Never>()
        var lateValues = 0
        kept.append(late.filter { $0 > 0 }.sink { _ in lateValues += 1 })
        let dropping = probe.flush()
        XCTAssertGreaterThan(dropping.trailer.droppedSinceLast, 0)
        XCTAssertEqual(dropping.nodes.count, 0, "the late pipeline's subscribes were dropped")
        inspector.fold(dropping)
        // A pipeline made after the drops: the lost stages' numbers are between.
        let after = PassthroughSubject<Int, Never>()
        kept.append(after.sink { _ in })
        let next = probe.flush()
        inspector.fold(next)
        // An inspector that attaches now learns the skipped numbers from the snapshot.
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let payload = writer.message(probe.snapshot()).framed().dropFirst(4)
        var attached = Graph()
        attached.load(try reader.snapshot(ServerMessage.decode(payload: payload).snapshot))
        XCTAssertFalse(attached.snapshot().stageNumberGaps.isEmpty, "the late pipeline's numbers are a gap")
        late.send(5)
        late.send(6)
        let sent = probe.flush()
        inspector.fold(sent)
        attached.fold(sent)
        XCTAssertEqual(lateValues, 2)
        for graph in [probe.graph, inspector, attached] {
            let created = graph.nodes.values.filter { $0.operatorName == Graph.droppedSubscribeName }
            XCTAssertEqual(created.map(\.values).sorted(), [2, 2], "the subject's and the filter's values: \(created.map(\.id))")
            XCTAssertTrue(created.allSatisfy { $0.status == .active })
        }
        XCTAssertEqual(inspector.nodes.keys.sorted(), probe.graph.nodes.keys.sorted())
        withExtendedLifetime(kept) {}
    }
}

/// Which stage numbers a graph takes for stages whose subscribe was dropped.
final class LostStartsTests: XCTestCase {
    private func info(_ id: NodeID) -> NodeInfo {
        NodeInfo(id: id, operatorName: "Sink", publisherType: "Sink", subscriber: "", thread: "main", createdNanos: 1)
    }

    func testASkippedNumberIsAStageWhoseStartWasLostAndALateOneIsNot() {
        var graph = Graph()
        for id in [1, 2, 4, 6, 5] as [NodeID] { graph.insert(info(id)) }  // 5 after 6: another thread's, late
        for id in [3, 5, 7] as [NodeID] { graph.apply(StageEvent(.value, node: id, time: 2, text: "v")) }
        func created() -> [NodeID] {
            graph.nodes.values.filter { $0.operatorName == Graph.droppedSubscribeName }.map(\.id).sorted()
        }
        XCTAssertEqual(created(), [3], "3 was skipped; 5 came late; 7, above the highest, while nothing was dropped")
        // Once the probe says it dropped events, a number above the highest is lost too.
        graph.fold(EventBatch(events: [StageEvent(.value, node: 1, time: 2, text: "v")],
                              trailer: BatchTrailer(sequence: 9, dropped: 40, droppedSinceLast: 40)))
        graph.apply(StageEvent(.value, node: 8, time: 3, text: "v"))
        XCTAssertEqual(created(), [3, 8])
        XCTAssertEqual(graph[5]?.operatorName, "Sink")
        XCTAssertEqual(graph[3]?.values, 1)
        XCTAssertEqual(graph[3]?.status, .active)
    }

    func testAPrunedStagesLateEventCreatesNothing() {
        var graph = Graph()
        for id in [1, 2, 3] as [NodeID] { graph.insert(info(id)) }
        graph.apply(StageEvent(.cancelled, node: 2, time: 2))
        graph.prune(now: 3_600_000_000_000, retention: Retention(seconds: 1, maxEndedPipelines: 0))
        XCTAssertNil(graph[2])
        graph.apply(StageEvent(.value, node: 2, time: 3, text: "late"))
        XCTAssertNil(graph[2], "inserted once: pruned, not lost")
        // An empty graph has nothing to go by: an unknown stage's event is ignored, as ever.
        var empty = Graph()
        empty.apply(StageEvent(.value, node: 9, time: 3, text: "v"))
        XCTAssertTrue(empty.nodes.isEmpty)
    }
}
