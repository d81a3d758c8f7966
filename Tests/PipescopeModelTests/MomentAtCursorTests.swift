import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Everything shown at a history cursor is judged at the cursor's moment, from the events
/// up to it (#42, item 1): never with the wall clock, nor with the newest event's time.
/// What the prefix oracle (PipescopeAppTests.PrefixOracleTests) found, one case each.
final class MomentAtCursorTests: XCTestCase {
    private let t0 = BatchBuilder.baseNanos
    private let second: Int64 = 1_000_000_000

    /// A timer (#1, into a sink) that ticks every 250 ms for 10 s, then a cancelled
    /// one-shot (#2, ended at 1 s), as a live session or a replay sees them.
    private func timer(replay: Bool) -> AppState {
        var state = AppState(targetName: "timer", pid: 1)
        _ = reduce(&state, replay ? .replaying(file: "timer.pipescope", process: "timer", pid: 1)
            : .attached(process: "timer", pid: 1))
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "TimerPublisher", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .unlimited)
        b.subscribe(2, op: "Just", subscriber: "Sink")
        b.subscription(2)
        b.request(2, .unlimited)
        b.now = t0 + second
        b.finish(2)
        for k in 1...40 {
            b.now = t0 + Int64(k) * second / 4
            b.value(1, "\(k)")
        }
        _ = reduce(&state, .batch(b.build()))
        return state
    }

    /// `g` then `w` in the live demo listed "stalled at #4 TimerPublisher … has sent
    /// nothing for 3m" for a timer ticking every 250 ms: the past was linted with the
    /// clock, and the list was the last tick's until the next one.
    func testAtACursorALiveSessionIsJudgedAtTheCursorsMomentAtOnce() {
        var state = timer(replay: false)
        let later = t0 + 10 * second + 180 * second
        _ = reduce(&state, .tick(nanos: later))
        XCTAssertEqual(state.warnings.lints.map(\.kind), [.stalled], "live, 3 minutes after its last tick: stalled")
        _ = reduce(&state, .action(.history(-10)))
        XCTAssertEqual(state.cursorMoment, t0 + 30 * second / 4, "on the timer's 30th tick")
        XCTAssertEqual(state.warnings.lints, [], "at once, before any tick: it ticks every 250 ms")
        XCTAssertNil(state.warnings.waits.pipeline(1))
        _ = reduce(&state, .tick(nanos: later + second))
        XCTAssertEqual(state.warnings.lints, [], "and after the next tick")
        _ = reduce(&state, .action(.historyLive))
        XCTAssertEqual(state.warnings.lints.map(\.kind), [.stalled], "live again: the clock's verdict again")
    }

    /// `g` then `n n` in a replay said "#418 Scan … has not sent a subscription in 5s" at
    /// the very event where it subscribed: the past was linted at the recording's end.
    func testAReplayAtTheEventWhereAStageSubscribedSaysNoWait() {
        var state = AppState(targetName: "scan", pid: 1)
        _ = reduce(&state, .replaying(file: "scan.pipescope", process: "scan", pid: 1))
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "TimerPublisher", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .unlimited)
        b.subscribe(2, op: "Scan", subscriber: "Sink")
        b.subscription(2)
        b.request(2, .unlimited)
        for k in 1...20 {
            b.now = t0 + Int64(k) * second / 4
            b.value(1, "\(k)")
            b.value(2, "\(k)")
        }
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 3_600 * second))
        _ = reduce(&state, .action(.historyStart))
        _ = reduce(&state, .action(.history(4)))
        XCTAssertEqual(state.cursor.position.flatMap { state.cursor.log.event(at: $0) }?.kind, .subscribe,
                       "on #2's subscribe")
        XCTAssertNil(state.warnings.waits.stages[2], "it subscribed a moment ago: it waits for nothing yet")
        XCTAssertEqual(state.warnings.lints, [])
        _ = reduce(&state, .tick(nanos: t0 + 3_601 * second))
        XCTAssertNil(state.warnings.waits.stages[2], "nor after a tick an hour after the recording")
    }

    /// At `g` (before the first event kept) the timeline showed the newest seconds with
    /// no `▼`; after `]` it jumped.
    func testAtTheOldestEventTheTimelineEndsAtItWithItsCursor() {
        var state = timer(replay: false)
        _ = reduce(&state, .tick(nanos: t0 + 11 * second))
        _ = reduce(&state, .action(.historyStart))
        XCTAssertEqual(state.cursor.position, 0)
        XCTAssertEqual(state.cursorMoment, t0, "the first event's moment: the graph is the one just before it")
        XCTAssertEqual(state.timelineWindowEnd, t0)
        _ = reduce(&state, .action(.history(1)))
        XCTAssertEqual(state.timelineWindowEnd, t0, "one event on, the window stays")
    }

    /// The table's LAST and RATE at a cursor read the counts of the events up to it, not
    /// the live counts (whose last event is later).
    func testATableRowAtACursorReadsNoLaterEvent() {
        var state = timer(replay: false)
        _ = reduce(&state, .tick(nanos: t0 + 11 * second))
        _ = reduce(&state, .action(.history(-20)))
        let moment = t0 + 20 * second / 4
        XCTAssertEqual(state.cursorMoment, moment)
        let row = state.table.rows.first { $0.id == 1 }
        XCTAssertEqual(row?.lastEventNanos, moment, "its last event then, not its last at all")
        XCTAssertEqual(row?.rate, 4, "4 ticks a second in the 3 whole seconds before 5 s (2, 3 and 4)")
        XCTAssertEqual(state.table.shownActivity.counts(of: 1, at: moment).suffix(6), [0, 6, 4, 4, 4, 4],
                       "the sparkline: its first second (made, subscribed, asked, 3 ticks), then 4 ticks a second")
    }

    /// A replay was pruned by the wall clock: an hour after recording, its first tick
    /// removed every stage that had ended, 60 s "ago".
    func testAReplayIsNotPrunedByTheClockItIsReplayedAt() {
        var state = timer(replay: true)
        _ = reduce(&state, .tick(nanos: t0 + 3_600 * second))
        XCTAssertNotNil(state.cursor.liveGraph[2], "ended 9 s before the recording's end: kept")
        XCTAssertEqual(state.table.rows.count, 2)
    }
}
