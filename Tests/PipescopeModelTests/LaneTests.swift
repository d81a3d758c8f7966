import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// A stage's lane: counts by time, held stretches, and forgetting what the history
/// forgets.
final class LaneTests: XCTestCase {
    func testValuesAreCountedByTimeAndKeptInOrder() {
        var lane = Lane()
        for t: Int64 in [10, 20, 20, 35, 30] { lane.addValue(at: t) }
        XCTAssertEqual(lane.values, [10, 20, 20, 35, 35], "a time read a moment early is kept at the last")
        XCTAssertEqual(lane.values(from: 0, to: 100), 5)
        XCTAssertEqual(lane.values(from: 20, to: 35), 2, "[from, to)")
        XCTAssertEqual(lane.values(from: 36, to: 100), 0)
        XCTAssertEqual(lane.values(from: 50, to: 40), 0)
    }

    func testHeldStretchesOpenAndClose() {
        var lane = Lane()
        lane.noteDemand(outstanding: false, at: 100)
        lane.noteDemand(outstanding: false, at: 150)  // still held: one stretch
        XCTAssertEqual(lane.held, [Lane.Held(start: 100, end: nil)])
        XCTAssertTrue(lane.isHeld(from: 120, to: 10_000), "an open stretch covers everything after it")
        lane.noteDemand(outstanding: true, at: 200)
        lane.noteDemand(outstanding: false, at: 300)
        lane.end(at: 400)
        XCTAssertEqual(lane.held, [Lane.Held(start: 100, end: 200), Lane.Held(start: 300, end: 400)])
        XCTAssertTrue(lane.isHeld(from: 110, to: 190))
        XCTAssertFalse(lane.isHeld(from: 190, to: 310), "demand outstanding in between")
        XCTAssertFalse(lane.isHeld(from: 50, to: 120))
        lane.drop(before: 250)
        XCTAssertEqual(lane.held, [Lane.Held(start: 300, end: 400)])
    }

    /// A stage already waiting for demand when the inspector attaches is drawn held
    /// from its last value on (the snapshot has no events to say so); one with demand is
    /// not. The snapshot alone would draw both as having demand until their next event.
    func testAStageHeldWhenTheInspectorAttachesIsDrawnHeld() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "IgnoresDemand", subscriber: "DemandCounter")
        b.subscription(1)
        b.request(1, .count(1))
        b.value(1)
        let lastValue = b.now
        b.subscribe(2, op: "Subject", subscriber: "Sink")
        b.subscription(2)
        b.request(2, .unlimited)
        b.value(2)
        var probeGraph = Graph()
        probeGraph.fold(b.build())

        var state = AppState(targetName: "attach", pid: 1)
        _ = reduce(&state, .attached(process: "attach", pid: 1))
        _ = reduce(&state, .snapshot(probeGraph.snapshot()))
        let held = try XCTUnwrap(state.timeline.lanes[1], "the held stage has a lane")
        XCTAssertTrue(held.isHeld(from: lastValue, to: lastValue + 60_000_000_000), "\(held.held)")
        XCTAssertFalse(held.isHeld(from: BatchBuilder.baseNanos, to: lastValue - 2_000_000),
                       "not held before its last value")
        // The stage with demand is there, and gets no lane at all: without one it is drawn
        // as having demand (AppState.Timeline.resyncDemand), so nothing marks it held.
        XCTAssertEqual(state.cursor.liveGraph[2]?.outstanding, .unlimited, "the stage with demand is in the graph")
        XCTAssertNil(state.timeline.lanes[2], "a stage with demand is not held: it has no held stretch to draw")

        // Demand arriving after the attach ends the stretch, as for any stage.
        var more = BatchBuilder(start: lastValue + 1_000_000_000)
        more.request(1, .count(1))
        _ = reduce(&state, .batch(more.build()))
        XCTAssertFalse(try XCTUnwrap(state.timeline.lanes[1]).isHeld(from: more.now + 1, to: more.now + 2))
    }

    /// Lanes keep what the history keeps: after it evicts, no lane holds an older time.
    func testLanesForgetWhatTheHistoryEvicts() throws {
        var state = AppState(targetName: "lanes", pid: 1)
        state.historyLimit = 2_000
        _ = reduce(&state, .attached(process: "lanes", pid: 1))
        var first = BatchBuilder()
        first.subscribe(1, op: "Subject", subscriber: "Sink")
        first.subscription(1)
        first.request(1, .unlimited)
        _ = reduce(&state, .batch(first.build()))
        var now = first.now
        for _ in 0..<20 {
            var b = BatchBuilder(start: now)
            for _ in 0..<500 { b.value(1) }
            now = b.now
            _ = reduce(&state, .batch(b.build()))
        }
        let log = state.cursor.log
        XCTAssertGreaterThan(log.start, 0, "the history evicted")
        let oldest = try XCTUnwrap(log.event(at: log.start + 1)?.time)
        let lane = try XCTUnwrap(state.timeline.lanes[1])
        XCTAssertGreaterThanOrEqual(lane.values.first ?? 0, oldest)
        XCTAssertEqual(lane.values.count, log.events(endingAt: log.end, count: log.end - log.start, node: 1,
                                                     kinds: [.value]).count, "every kept value, and only those")
    }

    /// With a spill, the lanes' times of the events on disk go to disk with them, and
    /// count as the lanes of a history kept wholly in memory do, at every column.
    func testLanesOfSpilledEventsGoToDiskAndCountTheSame() throws {
        var spilled = AppState(targetName: "lanes", pid: 1)
        spilled.historyLimit = 2_000
        spilled.historySpill = HistorySpill.Options(segmentEntries: 1_024)
        var memory = AppState(targetName: "lanes", pid: 1)
        memory.historyLimit = 1_000_000
        var first = BatchBuilder()
        first.subscribe(1, op: "Subject", subscriber: "Sink")
        first.subscription(1)
        first.request(1, .unlimited)
        var batches = [first.build()]
        var now = first.now
        for _ in 0..<20 {
            var b = BatchBuilder(start: now)
            for _ in 0..<500 { b.value(1) }
            now = b.now
            batches.append(b.build())
        }
        for batch in batches {
            _ = reduce(&spilled, .batch(batch))
            _ = reduce(&memory, .batch(batch))
        }
        XCTAssertEqual(spilled.cursor.log.start, 0, "nothing evicted: spilled")
        XCTAssertGreaterThan(spilled.cursor.log.memoryStart, 7_000)
        XCTAssertGreaterThan(try XCTUnwrap(spilled.cursor.log.spilled).laneTimes.bytesUsed, 0, "times on disk")
        let lane = try XCTUnwrap(spilled.timeline.lanes[1]), whole = try XCTUnwrap(memory.timeline.lanes[1])
        XCTAssertEqual(lane.values, whole.values)
        XCTAssertEqual(lane.values.count, 10_000)
        let times: [Int64] = whole.values
        let from: Int64 = try XCTUnwrap(times.first), to: Int64 = try XCTUnwrap(times.last) + 1
        let step: Int64 = max(1, (to - from) / 157)
        for t in stride(from: from - step, through: to, by: Int(step)) {
            XCTAssertEqual(lane.values(from: t, to: t + step), whole.values(from: t, to: t + step), "[\(t), +\(step))")
        }
    }
}
