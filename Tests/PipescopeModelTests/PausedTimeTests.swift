import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// Time the program spent paused by an inspector is no wait of its own (#43 item 8): a
/// timer that ticks every 250 ms is not "stalled" after a five-second pause, live or at
/// a history cursor; the time after the pause counts as before.
final class PausedTimeTests: XCTestCase {
    let t0 = BatchBuilder.baseNanos
    let second: Int64 = 1_000_000_000
    /// When the gate closed: 100 ms after the timer's last tick.
    var pausedAt: Int64 { t0 + 2_100_000_000 }

    /// Sink ← Map(1) ← TimerPublisher(2), ticking every 250 ms for two seconds; the last
    /// tick at t0 + 2 s.
    private func ticking() -> EventBatch {
        var b = BatchBuilder(start: t0, step: 0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "TimerPublisher"])
        for tick in 1...8 {
            b.now = t0 + Int64(tick) * 250_000_000
            b.value(2, "\(tick)")
            b.value(1, "\(tick)")
        }
        return b.build()
    }

    private func state(saysWhenPaused: Bool) -> AppState {
        var state = AppState(targetName: "timer")
        _ = reduce(&state, .attached(process: "timer", pid: 1))
        _ = reduce(&state, .tick(nanos: t0))
        _ = reduce(&state, .batch(ticking()))
        var paused = EventBatch()
        paused.trailer.sequence = 16
        // A probe before the pause's times were sent says only that it is paused.
        paused.trailer.gate = GateState(paused: true, pausedSinceNanos: saysWhenPaused ? pausedAt : 0)
        _ = reduce(&state, .batch(paused))
        return state
    }

    func testAPausedTimerIsNotStalled() throws {
        var state = state(saysWhenPaused: true)
        _ = reduce(&state, .tick(nanos: pausedAt + 5 * second))
        XCTAssertTrue(state.session.paused)
        XCTAssertNil(state.warnings.waits.pipeline(1), "five seconds paused is no wait")
        XCTAssertTrue(state.warnings.lints.isEmpty, "\(state.warnings.lints.map(\.message))")

        // The control: without the pause's time, the same five seconds read as a stall.
        var unknown = self.state(saysWhenPaused: false)
        _ = reduce(&unknown, .tick(nanos: pausedAt + 5 * second))
        let wait = try XCTUnwrap(unknown.warnings.waits.pipeline(1))
        XCTAssertEqual(wait.at, 2, "the timer holds it")
        XCTAssertEqual(unknown.warnings.lints.map(\.kind), [.stalled])
    }

    func testTimeAfterThePauseCountsAsTimeBefore() throws {
        var state = state(saysWhenPaused: true)
        _ = reduce(&state, .tick(nanos: pausedAt + 5 * second))
        let resumedAt = pausedAt + 5 * second
        var resumed = EventBatch()
        resumed.trailer.sequence = 16
        resumed.trailer.gate = GateState(endedPause: PauseInterval(fromNanos: pausedAt, toNanos: resumedAt))
        _ = reduce(&state, .batch(resumed))
        XCTAssertFalse(state.session.paused)
        // 0.1 s before the pause and 1.8 s after it: 1.9 s, under the 2 s threshold.
        _ = reduce(&state, .tick(nanos: resumedAt + 1_800_000_000))
        XCTAssertNil(state.warnings.waits.pipeline(1))
        // 0.1 s before and 2.9 s after: 3 s without a tick, the pause left out.
        _ = reduce(&state, .tick(nanos: resumedAt + 2_900_000_000))
        let wait = try XCTUnwrap(state.warnings.waits.pipeline(1))
        XCTAssertEqual(wait.nanos(at: resumedAt + 2_900_000_000), 3 * second)
        XCTAssertEqual(state.warnings.lints.map(\.kind), [.stalled])
        XCTAssertTrue(state.warnings.lints[0].message.contains("3s"), state.warnings.lints[0].message)
    }

    /// At a history cursor the pauses before the cursor's moment count, and its waits
    /// are as they were then: another pipeline's event after the pause is the cursor.
    func testAtAHistoryCursorThePauseBeforeItIsLeftOut() throws {
        var state = state(saysWhenPaused: true)
        let resumedAt = pausedAt + 5 * second
        var after = BatchBuilder(start: resumedAt + 3 * second, step: 0)
        after.chain(from: 10, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        after.value(11, "x")
        var batch = after.build(sequence: 16 + UInt64(after.batch.events.count))
        batch.trailer.gate = GateState(endedPause: PauseInterval(fromNanos: pausedAt, toNanos: resumedAt))
        _ = reduce(&state, .batch(batch))
        _ = reduce(&state, .tick(nanos: resumedAt + 60 * second))
        _ = reduce(&state, .action(.history(-1)))
        XCTAssertEqual(state.timelineEnd, resumedAt + 3 * second, "the cursor is on the subject's value")
        let wait = try XCTUnwrap(state.warnings.waits.pipeline(1), "the timer waited then")
        XCTAssertEqual(wait.nanos(at: state.timelineEnd), 3 * second + 100_000_000,
                       "0.1 s before the pause and 3 s after it; not the 5 s paused, nor the minute since")
    }
}
