import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// The timeline's cursor is the history cursor: `←` `→` in the timeline move it a column
/// of time at a time, landing on events; the window stays put while it moves inside and
/// scrolls at an edge; zooming keeps its moment in its column; `G` is live again.
final class TimelineCursorTests: XCTestCase {
    private let t0 = BatchBuilder.baseNanos
    private let tenth: Int64 = 100_000_000

    /// One stage with a value every 100 ms for 10 s (the timeline's default scale: one a
    /// column), a 50-column timeline, the focus on it.
    private func state() -> AppState {
        var state = AppState(targetName: "cursor", pid: 1)
        _ = reduce(&state, .attached(process: "cursor", pid: 1))
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Timer", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .unlimited)
        for k in 1...100 {
            b.now = t0 + Int64(k) * tenth
            b.value(1, "\(k)")
        }
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 100 * tenth))
        _ = reduce(&state, .action(.focusNext))
        XCTAssertEqual(state.focus, .timeline)
        return state
    }

    private func moment(_ state: AppState) -> Int64? { state.cursorMoment.map { ($0 - t0) / tenth } }

    func testArrowsMoveAColumnOfTimeAndLandOnEvents() {
        var s = state()
        _ = reduce(&s, .action(.collapse))
        XCTAssertEqual(moment(s), 99, "one column back from now: the value at 9.9 s")
        _ = reduce(&s, .action(.collapse))
        XCTAssertEqual(moment(s), 98)
        _ = reduce(&s, .action(.digit(1)))
        _ = reduce(&s, .action(.digit(0)))
        _ = reduce(&s, .action(.collapse))
        XCTAssertEqual(moment(s), 88, "10← moves ten columns")
        _ = reduce(&s, .action(.expand))
        XCTAssertEqual(moment(s), 89)
        XCTAssertEqual(s.cursor.log.event(at: s.cursor.position!)?.text, "89", "the history cursor is on that event")
        _ = reduce(&s, .action(.historyLive))
        XCTAssertNil(s.cursor.position, "G: live again")
        XCTAssertNil(s.timeline.windowEnd)
    }

    func testTheWindowStaysWhileTheCursorMovesInsideAndScrollsAtAnEdge() {
        var s = state()
        _ = reduce(&s, .action(.collapse))
        let end = s.timelineWindowEnd
        XCTAssertEqual(end, t0 + 99 * tenth, "entering the past: the window ends at the cursor")
        for _ in 0..<20 { _ = reduce(&s, .action(.collapse)) }
        XCTAssertEqual(moment(s), 79)
        XCTAssertEqual(s.timelineWindowEnd, end, "the cursor moved inside the window: it stayed")
        for _ in 0..<40 { _ = reduce(&s, .action(.collapse)) }
        XCTAssertEqual(moment(s), 39)
        XCTAssertEqual(s.timelineWindowEnd, t0 + (39 + 49) * tenth, "past the left edge: the cursor is at it")
        for _ in 0..<55 { _ = reduce(&s, .action(.expand)) }
        XCTAssertEqual(moment(s), 94)
        XCTAssertEqual(s.timelineWindowEnd, t0 + 94 * tenth, "past the right edge: the cursor is at it")
    }

    /// `=`: everything the history keeps fits the timeline's width, the oldest event in
    /// its first columns.
    func testFitPutsEverythingKeptAcrossTheWidth() {
        var s = state()
        _ = reduce(&s, .action(.fitTimeline))
        let oldest = s.cursor.log.event(at: s.cursor.log.start + 1)!.time
        let column = 49 - Int((s.timelineWindowEnd - oldest) / s.timeline.scale)
        XCTAssertTrue((0...1).contains(column), "the oldest event is at the left edge, column \(column)")
    }

    func testZoomKeepsTheCursorsMomentInItsColumn() {
        var s = state()
        _ = reduce(&s, .action(.collapse))
        for _ in 0..<10 { _ = reduce(&s, .action(.collapse)) }
        let moment = s.cursorMoment!
        let columnsBefore = (s.timelineWindowEnd - moment) / s.timeline.scale
        _ = reduce(&s, .action(.zoom(2)))
        XCTAssertEqual(s.timeline.scale, tenth / 2)
        XCTAssertEqual((s.timelineWindowEnd - moment) / s.timeline.scale, columnsBefore)
        XCTAssertEqual(s.cursorMoment, moment, "zooming does not move the cursor")
    }
}
