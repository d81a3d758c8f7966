import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// A program that ends while attached, and starts again: what was seen stays, time stands
/// still where it ended, and each run is its own section of history.
final class EndedRunTests: XCTestCase {
    private let t0 = BatchBuilder.baseNanos

    /// Attached to pid `pid`, with the filter/map/subject pipeline after `values`.
    private func attached(pid: Int32 = 100, values: [Int] = [1, 2, 3, 4, 5], into state: inout AppState) {
        _ = reduce(&state, .attached(process: "app", pid: pid))
        _ = reduce(&state, .snapshot(GraphSnapshot()))
        var b = BatchBuilder(start: t0)
        BatchFixtures.filterMapSubject(into: &b, values: values)
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 1_000_000_000))
    }

    func testTimeStandsStillWhereTheProgramEnded() {
        var state = AppState(targetName: "app")
        attached(into: &state)
        let events = state.cursor.log.end
        _ = reduce(&state, .tick(nanos: t0 + 2_000_000_000))
        _ = reduce(&state, .disconnected("the program closed the connection"))
        XCTAssertTrue(state.session.hasEnded)
        XCTAssertEqual(state.session.endedAt, t0 + 2_000_000_000, "the last tick's clock")
        XCTAssertEqual(state.session.endReason, "the program closed the connection")
        // An hour of ticks later: the timeline's right edge, the lints' clock and the
        // graph are as they were when it ended.
        let graph = state.cursor.liveGraph
        for s in 3...20 { _ = reduce(&state, .tick(nanos: t0 + Int64(s) * 200_000_000_000)) }
        XCTAssertEqual(state.timeline.now, t0 + 2_000_000_000)
        XCTAssertEqual(state.timelineEnd, t0 + 2_000_000_000)
        XCTAssertEqual(state.cursor.liveGraph.nodes.count, graph.nodes.count, "nothing pruned as time goes by")
        // History still moves, both ways.
        _ = reduce(&state, .action(.history(-3)))
        XCTAssertEqual(state.cursor.position, events - 3)
        _ = reduce(&state, .action(.history(3)))
        XCTAssertNil(state.cursor.position, "back at the end")
        _ = reduce(&state, .action(.historyStart))
        XCTAssertEqual(state.cursor.position, 0)
    }

    func testSaveAndWaitSayWhatTheyDo() {
        var state = AppState(targetName: "app")
        attached(into: &state)
        XCTAssertEqual(reduce(&state, .action(.save)), [.save], "saving works live too")
        XCTAssertEqual(reduce(&state, .action(.waitForRestart)), [])
        XCTAssertEqual(state.session.notice?.text, "app is running: r waits for it to start again once it has ended")
        _ = reduce(&state, .disconnected("gone"))
        XCTAssertEqual(reduce(&state, .action(.waitForRestart)), [.waitForRestart("app")])
        XCTAssertEqual(state.session.waitingFor, "app")
        XCTAssertEqual(reduce(&state, .action(.save)), [.save])
    }

    func testTheSameProcessAgainContinuesItsRun() {
        var state = AppState(targetName: "app")
        attached(pid: 100, into: &state)
        let kept = state.cursor.log.end
        _ = reduce(&state, .disconnected("connection reset"))
        _ = reduce(&state, .attached(process: "app", pid: 100))
        _ = reduce(&state, .snapshot(state.cursor.liveGraph.snapshot()))
        XCTAssertTrue(state.runs.earlier.isEmpty, "no new run")
        XCTAssertEqual(state.cursor.log.end, kept, "its history stays")
        XCTAssertNil(state.session.endedAt)
        XCTAssertEqual(state.session.connection, .connected)
    }

    func testANewRunKeepsTheEndedOneAsItsOwnSection() {
        var state = AppState(targetName: "app")
        attached(pid: 100, values: [1, 2, 3], into: &state)
        let firstEvents = state.cursor.log.end
        let firstGraph = state.cursor.liveGraph
        _ = reduce(&state, .tick(nanos: t0 + 3_000_000_000))
        _ = reduce(&state, .disconnected("killed"))

        // The program starts again (pid 200) with the same ids: its own section.
        attached(pid: 200, values: [7, 8, 9, 10, 11, 12, 13], into: &state)
        let secondEvents = state.cursor.log.end
        XCTAssertEqual(state.runs.earlier.count, 1)
        XCTAssertEqual(state.runs.earlier[0].pid, 100)
        XCTAssertEqual(state.runs.earlier[0].endedAt, t0 + 3_000_000_000)
        XCTAssertEqual(state.runs.earlier[0].why, "killed")
        XCTAssertEqual(state.session.pid, 200)
        XCTAssertNil(state.session.endedAt)
        XCTAssertNotEqual(secondEvents, firstEvents)
        XCTAssertEqual(state.runs.shown, 2)

        // g: this run's start; g again: the ended run's start.
        _ = reduce(&state, .action(.historyStart))
        XCTAssertNil(state.runs.viewing)
        XCTAssertEqual(state.cursor.position, 0)
        _ = reduce(&state, .action(.historyStart))
        XCTAssertEqual(state.runs.viewing, 0)
        XCTAssertEqual(state.runs.shown, 1)
        XCTAssertEqual(state.cursor.position, 0)
        XCTAssertEqual(state.cursor.log.end, firstEvents, "the ended run's own history")

        // A live batch while the ended run is on screen goes to the live run.
        var more = BatchBuilder(start: t0 + 5_000_000_000)
        more.value(3, "99")
        _ = reduce(&state, .batch(more.build(sequence: UInt64(secondEvents + 1))))
        XCTAssertEqual(state.cursor.log.end, firstEvents, "the run on screen is unchanged")

        // ] past the ended run's end goes on to the live run's start; [ at it comes back
        // to the ended run's end, showing its final graph.
        _ = reduce(&state, .action(.history(firstEvents)))
        XCTAssertEqual(state.cursor.position, firstEvents)
        XCTAssertEqual(state.cursor.graph[1]?.values, firstGraph[1]?.values)
        _ = reduce(&state, .action(.history(1)))
        XCTAssertNil(state.runs.viewing)
        XCTAssertEqual(state.cursor.position, 0, "the live run's start")
        _ = reduce(&state, .action(.history(-1)))
        XCTAssertEqual(state.runs.viewing, 0)
        XCTAssertEqual(state.cursor.position, firstEvents)

        // G: the live run, with the batch that came meanwhile.
        _ = reduce(&state, .action(.historyLive))
        XCTAssertNil(state.runs.viewing)
        XCTAssertNil(state.cursor.position)
        XCTAssertEqual(state.cursor.log.end, secondEvents + 1)
        XCTAssertEqual(state.cursor.liveGraph[3]?.values, 8)
    }

    /// Restarts do not make the inspector grow: the earlier runs together keep at most
    /// the history limit's events.
    func testEarlierRunsTogetherKeepAtMostOneHistory() {
        var state = AppState(targetName: "app")
        state.historyLimit = 100
        for pid in 1...5 {
            attached(pid: Int32(pid), values: Array(1...12), into: &state)  // 45 events a run
            _ = reduce(&state, .disconnected("exited"))
        }
        attached(pid: 6, into: &state)
        XCTAssertEqual(state.runs.earlier.map(\.pid), [4, 5], "two runs of 45 events fit in 100; three do not")
    }

    /// The lints and the table are derived incrementally from the graph's changes; a run
    /// swapped onto the screen is another graph, so they start over and match a
    /// from-scratch computation on every run shown.
    func testLintsAndRowsFollowTheRunOnScreen() {
        var state = AppState(targetName: "app")
        state.warnings.linter.stalledAfter = 1
        attached(pid: 100, values: [1, 2, 3], into: &state)
        _ = reduce(&state, .disconnected("killed"))
        // The next run: the same pipeline, plus two stages never given a subscription.
        attached(pid: 200, values: [4, 5], into: &state)
        var b = BatchBuilder(start: t0 + 2_000_000_000)
        b.subscribe(4, op: "Future", subscriber: "Sink")
        b.subscribe(5, op: "Just", subscriber: "Sink")
        _ = reduce(&state, .batch(b.build(sequence: UInt64(state.cursor.log.end + 2))))
        func check(_ now: Int64, _ context: String) {
            _ = reduce(&state, .tick(nanos: now))
            let at = state.session.endedAt ?? state.runs.viewing.flatMap { state.runs.earlier[$0].endedAt } ?? now
            let fresh = AppState.Warnings.fromScratch(state.cursor.graph, now: at, linter: state.warnings.linter)
            XCTAssertEqual(state.warnings.lints, fresh.lints, context)
            XCTAssertEqual(state.warnings.groups, fresh.groups, context)
            var full = AppState.Table()
            full.sort = state.table.sort
            full.descending = state.table.descending
            full.activity = state.table.activity
            _ = full.refresh(cursor: state.cursor, warnings: state.warnings, now: state.timelineEnd,
                                 hideEnded: state.tree.hideEnded, changes: nil)
            XCTAssertEqual(state.table.rows.map(\.id), full.rows.map(\.id), context)
        }
        check(t0 + 6_000_000_000, "live run 2")
        XCTAssertEqual(state.table.rows.count, 3)
        _ = reduce(&state, .action(.historyStart))
        _ = reduce(&state, .action(.historyStart))
        XCTAssertEqual(state.runs.viewing, 0)
        check(t0 + 7_000_000_000, "run 1's start on screen")
        XCTAssertEqual(state.table.rows.count, 0, "before run 1's first event")
        _ = reduce(&state, .action(.history(state.cursor.log.end)))
        XCTAssertEqual(state.runs.viewing, 0)
        check(t0 + 7_500_000_000, "run 1's end on screen")
        XCTAssertEqual(state.table.rows.count, 1, "run 1 had one pipeline")
        _ = reduce(&state, .action(.historyLive))
        check(t0 + 8_000_000_000, "back to run 2")
        XCTAssertEqual(state.table.rows.count, 3)
    }

    /// The live run parked while live (its history empty, so `[` at once steps back into
    /// the ended run), batches arriving meanwhile: back on screen, its lints and rows are
    /// its own, not the ended run's with the new changes on top.
    func testALiveRunParkedWhileLiveComesBackWithItsOwnLints() {
        var state = AppState(targetName: "app")
        state.warnings.linter.stalledAfter = 1
        attached(pid: 100, values: [1, 2, 3], into: &state)
        // Run 1 has a mistake: a stage that never got its subscription.
        var stuck = BatchBuilder(start: t0 + 100_000_000)
        stuck.subscribe(9, op: "Future", subscriber: "Sink")
        _ = reduce(&state, .batch(stuck.build(sequence: UInt64(state.cursor.log.end + 1))))
        _ = reduce(&state, .tick(nanos: t0 + 20_000_000_000))
        XCTAssertFalse(state.warnings.lints.isEmpty, "run 1 has lints")
        _ = reduce(&state, .disconnected("killed"))
        _ = reduce(&state, .attached(process: "app", pid: 200))
        _ = reduce(&state, .snapshot(GraphSnapshot()))
        _ = reduce(&state, .tick(nanos: t0 + 21_000_000_000))
        _ = reduce(&state, .action(.history(-1)))
        XCTAssertEqual(state.runs.viewing, 0, "straight into the ended run")
        _ = reduce(&state, .tick(nanos: t0 + 21_500_000_000))
        XCTAssertFalse(state.warnings.lints.isEmpty, "run 1's lints on screen")
        var b = BatchBuilder(start: t0 + 22_000_000_000)
        b.subscribe(7, op: "Future", subscriber: "Sink")
        _ = reduce(&state, .batch(b.build(sequence: 1)))
        _ = reduce(&state, .action(.historyLive))
        XCTAssertNil(state.runs.viewing)
        let now = t0 + 22_500_000_000
        _ = reduce(&state, .tick(nanos: now))
        let fresh = AppState.Warnings.fromScratch(state.cursor.graph, now: now, linter: state.warnings.linter)
        XCTAssertEqual(state.warnings.lints, fresh.lints)
        XCTAssertEqual(state.warnings.groups, fresh.groups)
        XCTAssertEqual(state.table.rows.map(\.id), [7], "the live run's one pipeline, not the ended run's")
    }

    func testOnlyTheNewestRunsAreKept() {
        var state = AppState(targetName: "app")
        for pid in 1...(AppState.Runs.limit + 3) {
            attached(pid: Int32(pid), into: &state)
            _ = reduce(&state, .disconnected("exited"))
        }
        XCTAssertEqual(state.runs.earlier.count, AppState.Runs.limit)
        XCTAssertEqual(state.runs.earlier.first?.pid, 3, "the oldest went first")
    }
}
