import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// Events the probe dropped are shown where they were lost: a line in the event log after
/// the last event kept before the gap, and `↯` in the timeline at the moment the first
/// was lost, on the ruler and on the lanes of the pipelines that lost them; never only a
/// total in the status bar.
final class DropMarkTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
    }

    /// Pipeline #1 (Map ← PassthroughSubject) and #3 (Sink on a Just): the first batch
    /// ends with 120 events dropped, 100 of #1's and 20 of #3's, the first at 12:00:00.010;
    /// the second batch goes on after the gap.
    private func twoBatchesAroundAGap() -> [EventBatch] {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Map")
        b.subscribe(3, op: "Just", subscriber: "Sink")
        b.value(2, "1")
        b.value(1, "2")
        var first = b.build()
        first.trailer.dropped = 120
        first.trailer.droppedSinceLast = 120
        first.trailer.droppedByPipeline = [1: 100, 3: 20]
        first.trailer.droppedSinceNanos = ViewFixtures.t0 + 10_000_000
        var c = BatchBuilder(start: ViewFixtures.t0 + 20_000_000)
        c.value(2, "7")
        c.value(1, "8")
        let second = c.build(sequence: first.trailer.sequence + 2, dropped: 120)
        return [first, second]
    }

    /// The log's rows (its header dropped), trailing blanks trimmed.
    private func logRows(_ state: AppState, width: Int = 90, height: Int = 12) -> [String] {
        ViewFixtures.logRows(state, width: width, height: height)
    }

    func testTheLogSaysHowManyWereDroppedRightAfterTheLastEventKeptBeforeThem() {
        let state = ViewFixtures.connected(twoBatchesAroundAGap()[0], twoBatchesAroundAGap()[1])
        XCTAssertEqual(logRows(state), [
            "1 12:00:00.000  #1 Map  subscribe",
            "2 12:00:00.001  #2 PassthroughSubject  subscribe",
            "3 12:00:00.002  #3 Just  subscribe",
            "4 12:00:00.003  #2 PassthroughSubject  value 1",
            "5 12:00:00.004  #1 Map  value 2",
            "⚠ 120 events dropped here (the probe's buffer was full)",
            "6 12:00:00.020  #2 PassthroughSubject  value 7",
            "7 12:00:00.021  #1 Map  value 8",
        ])
    }

    func testOneStagesLogCountsOnlyItsPipelinesDropsAndAPipelineThatLostNoneShowsNoGap() {
        var state = ViewFixtures.connected(twoBatchesAroundAGap()[0], twoBatchesAroundAGap()[1])
        _ = reduce(&state, .action(.moveDown))
        _ = reduce(&state, .action(.toggleLogFilter))
        _ = reduce(&state, .action(.toggleLogFilter))
        XCTAssertEqual(state.eventLog, .stage(2))
        XCTAssertEqual(logRows(state), [
            "2 12:00:00.001  #2 PassthroughSubject  subscribe",
            "4 12:00:00.003  #2 PassthroughSubject  value 1",
            "⚠ 100 events dropped here (the probe's buffer was full)",
            "6 12:00:00.020  #2 PassthroughSubject  value 7",
        ])
        var one = twoBatchesAroundAGap()
        one[0].trailer.droppedByPipeline = [3: 120]
        state = ViewFixtures.connected(one[0], one[1])
        _ = reduce(&state, .action(.moveDown))
        _ = reduce(&state, .action(.toggleLogFilter))
        _ = reduce(&state, .action(.toggleLogFilter))
        XCTAssertFalse(logRows(state).contains { $0.contains("dropped") }, "pipeline #1 lost nothing")
    }

    func testAtAHistoryCursorBeforeTheGapTheGapIsNotShownYet() {
        var state = ViewFixtures.connected(twoBatchesAroundAGap()[0], twoBatchesAroundAGap()[1])
        _ = reduce(&state, .action(.history(-3)))  // onto event 4, before the gap
        XCTAssertEqual(state.cursor.position, 4)
        XCTAssertEqual(logRows(state).last, "4 12:00:00.003  #2 PassthroughSubject  value 1")
        XCTAssertFalse(logRows(state).contains { $0.contains("dropped") })
        _ = reduce(&state, .action(.history(2)))  // event 6: after the gap
        XCTAssertEqual(Array(logRows(state).suffix(2)), [
            "⚠ 120 events dropped here (the probe's buffer was full)",
            "6 12:00:00.020  #2 PassthroughSubject  value 7",
        ])
    }

    func testTheTimelineMarksTheMomentTheFirstWasLostOnTheRulerAndTheLanesThatLostThem() {
        var state = ViewFixtures.connected(twoBatchesAroundAGap()[0], twoBatchesAroundAGap()[1])
        let width = 40
        var buffer = ScreenBuffer(width: width, height: 6)
        let window = LaneDrawing.Window(end: state.timelineWindowEnd, scale: state.timeline.scale, width: width)
        let column = window.column(of: ViewFixtures.t0 + 10_000_000)
        XCTAssert((0..<width).contains(column), "the gap is in the window")
        TimelineView.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: width, height: 6), into: &buffer)
        let lines = buffer.lines().map { Array($0) }
        XCTAssertEqual(lines[0][column], "↯", "on the ruler")
        // The tree's rows: #1 Map, #2 PassthroughSubject (both pipeline #1), #3 Just.
        XCTAssertEqual(state.tree.rows.prefix(3).map(\.id), [1, 2, 3])
        XCTAssertEqual((1...3).map { lines[$0][column] }, ["↯", "↯", "↯"])
        var onlyOne = twoBatchesAroundAGap()[0]
        onlyOne.trailer.droppedByPipeline = [3: 120]
        state = ViewFixtures.connected(onlyOne)
        buffer = ScreenBuffer(width: width, height: 6)
        TimelineView.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: width, height: 6), into: &buffer)
        let only = buffer.lines().map { Array($0) }
        let at = LaneDrawing.Window(end: state.timelineWindowEnd, scale: state.timeline.scale, width: width)
            .column(of: ViewFixtures.t0 + 10_000_000)
        XCTAssertEqual((0...3).map { only[$0][at] == "↯" }, [true, false, false, true],
                       "the ruler and #3's lane only: #1 lost nothing")
    }
}
