import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// A one-pipeline view (Enter on the table) moves through that pipeline's events only:
/// `[` `]`, the event log's arrows, the timeline's `←` `→` and, in a replay, `n` never
/// land on an event of a pipeline that is not on screen (the issue's `T` then `←` landing
/// on a value of pipeline #1 while "Pipeline #5 only" was shown).
final class PipelineStepTests: XCTestCase {
    private let t0 = BatchBuilder.baseNanos
    private let tenth: Int64 = 100_000_000

    /// Two pipelines, #1 (Timer → Sink) and #5 (Just → Sink), their values interleaved:
    /// #1 every 100 ms, #5 every 500 ms; the table open on #5, Enter pressed.
    private func state(replay: Bool = false) -> AppState {
        var state = AppState(targetName: "steps", pid: 1)
        if replay {
            _ = reduce(&state, .replaying(file: "steps.pipescope", process: "steps", pid: 1))
        } else {
            _ = reduce(&state, .attached(process: "steps", pid: 1))
        }
        _ = reduce(&state, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))
        var b = BatchBuilder(start: t0)
        for id: NodeID in [1, 5] {
            b.subscribe(id, op: id == 1 ? "Timer" : "PassthroughSubject", subscriber: "Sink")
            b.subscription(id)
            b.request(id, .unlimited)
        }
        for k in 1...50 {
            b.now = t0 + Int64(k) * tenth
            b.value(1, "\(k)")
            if k % 5 == 0 { b.value(5, "five \(k)") }
        }
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 50 * tenth))
        state.refreshTable()
        state.table.select(pipeline: 5)
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertEqual(state.tree.scope, 5, "Pipeline #5 only")
        return state
    }

    private func cursorEvent(_ state: AppState) -> StageEvent? {
        state.cursor.position.flatMap { state.cursor.log.event(at: $0) }
    }

    func testHistoryStepsLandOnlyOnThePipelinesEvents() throws {
        var s = state()
        _ = reduce(&s, .action(.history(-1)))
        XCTAssertEqual(cursorEvent(s)?.node, 5)
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 45"), "from live, the newest but one of #5's")
        _ = reduce(&s, .action(.history(-2)))
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 35"), "two of #5's events back, whatever #1 did between")
        _ = reduce(&s, .action(.history(1)))
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 40"))
        _ = reduce(&s, .action(.history(5)))
        XCTAssertNil(s.cursor.position, "past its newest event: live again")
    }

    func testTheEventLogsArrowsAndTheTimelinesStayInThePipeline() throws {
        var s = state()
        _ = reduce(&s, .action(.focusNext))
        XCTAssertEqual(s.focus, .timeline)
        _ = reduce(&s, .action(.collapse))  // ←: a column of time back, onto #5's nearest event that way
        XCTAssertEqual(cursorEvent(s)?.node, 5, "← lands on the pipeline's own event")
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 45"))
        _ = reduce(&s, .action(.expand))
        XCTAssertNil(s.cursor.position, "→ past #5's newest event: live")
        while s.focus != .events { _ = reduce(&s, .action(.focusNext)) }
        _ = reduce(&s, .action(.moveUp))
        _ = reduce(&s, .action(.moveUp))
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 40"), "↑ ↑ in the log: two of #5's events back, #1's skipped")
    }

    func testAReplaysStepAndTheOldestEdgeSaySo() throws {
        var s = state(replay: true)
        _ = reduce(&s, .action(.history(-2)))
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 40"))
        _ = reduce(&s, .action(.step))
        XCTAssertEqual(cursorEvent(s)?.node, 5, "n in a replay steps to #5's next event")
        XCTAssertEqual(cursorEvent(s)?.value, .text("five 45"))
        _ = reduce(&s, .action(.history(-100)))
        XCTAssertEqual(cursorEvent(s)?.node, 5, "as far back as #5's events go: its oldest")
        XCTAssertEqual(cursorEvent(s)?.kind, .subscribe)
        _ = reduce(&s, .action(.history(-1)))
        XCTAssertEqual(cursorEvent(s)?.kind, .subscribe, "nothing of #5 before it: the cursor stays")
        XCTAssertEqual(s.session.notice?.text, "no earlier event of pipeline #5 is kept (Esc shows every pipeline)")
    }

    /// `f` twice lists the selected stage's events only (once: its pipeline's): the
    /// cursor steps through those.
    func testWithTheLogOnOneStageTheCursorStepsThroughItsEvents() throws {
        var s = state()
        _ = reduce(&s, .action(.dismiss))       // back to the table
        _ = reduce(&s, .action(.toggleTable))   // t: every pipeline's tree
        XCTAssertNil(s.tree.scope)
        _ = reduce(&s, .action(.home))
        for _ in 0..<10 where s.selectedNode?.id != 1 { _ = reduce(&s, .action(.moveDown)) }
        XCTAssertEqual(s.selectedNode?.id, 1, "the Timer's stage selected")
        _ = reduce(&s, .action(.toggleLogFilter))
        XCTAssertEqual(s.eventLog, .pipeline(1, stages: [1]), "f: the selected stage's pipeline")
        XCTAssertNil(s.session.notice, "the event log's title says it (140x40)")
        _ = reduce(&s, .resize(Geometry(width: 80, height: 24, treePage: 10)))
        _ = reduce(&s, .action(.toggleLogFilter))
        _ = reduce(&s, .action(.toggleLogFilter))
        _ = reduce(&s, .action(.toggleLogFilter))
        XCTAssertEqual(s.eventLog, .pipeline(1, stages: [1]), "f thrice: round to the pipeline")
        XCTAssertEqual(s.session.notice?.text, "event log: pipeline #1's events only (f: the selected stage's)",
                       "at 80x24 no event log is on screen: the status line says what f did")
        _ = reduce(&s, .action(.toggleLogFilter))
        XCTAssertEqual(s.eventLog, .stage(1))
        XCTAssertEqual(s.session.notice?.text, "event log: #1's events only (f: every pipeline's)")
        _ = reduce(&s, .action(.history(-3)))
        XCTAssertEqual(cursorEvent(s)?.node, 1)
        XCTAssertEqual(cursorEvent(s)?.value, .text("48"), "three of #1's events back from live: 50, 49, 48")
        _ = reduce(&s, .action(.history(-100)))
        _ = reduce(&s, .action(.history(-1)))
        XCTAssertEqual(s.session.notice?.text, "no earlier event of #1 is kept (f lists more)")
    }
}
