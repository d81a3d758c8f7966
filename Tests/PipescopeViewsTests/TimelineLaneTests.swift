import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
@testable import PipescopeViews
import TerminalKit
import XCTest

/// The timeline's lanes, drawn from known histories and compared line by line: a 50-column
/// pane at 100 ms a column, ending 5 s after `t0`, so a time `t0 + s` seconds falls in
/// column `10 * s - 1` (`t0 + 1 s` in column 9).
final class TimelineLaneTests: XCTestCase {
    private let t0 = BatchBuilder.baseNanos
    private let second: Int64 = 1_000_000_000

    /// The inspector on the tree, fed `batches`, its clock at `t0 + 5 s`.
    private func state(_ batches: [EventBatch]) -> AppState {
        var state = AppState(targetName: "lanes", pid: 1)
        _ = reduce(&state, .attached(process: "lanes", pid: 1))
        _ = reduce(&state, .action(.toggleTable))
        for batch in batches { _ = reduce(&state, .batch(batch)) }
        _ = reduce(&state, .tick(nanos: t0 + 5 * second))
        return state
    }

    /// The timeline pane's lines: the ruler, then one lane per tree row.
    private func lanes(_ state: AppState, theme: Theme = .plainUnicode) -> [String] {
        var buffer = ScreenBuffer(width: 50, height: 6)
        TimelineView.render(state, theme: theme, area: Rect(x: 0, y: 0, width: 50, height: 6), into: &buffer)
        return buffer.lines()
    }

    /// Events from `t0 + seconds` on, a little before it, so that the events that follow
    /// a millisecond apart stay in the same column (`10 * seconds - 1`).
    private func at(_ seconds: Double, _ b: inout BatchBuilder) { b.now = t0 + Int64(seconds * 1e9) - 50_000_000 }

    /// Stage `id` subscribes at `seconds`, gets its subscription and asks for `demand`.
    private func start(_ id: NodeID, _ op: String, at seconds: Double, demand: Demand = .unlimited,
                       _ b: inout BatchBuilder) {
        at(seconds, &b)
        b.subscribe(id, op: op, subscriber: "Sink")
        b.subscription(id)
        b.request(id, demand)
    }

    /// A line of the pane, as ``ScreenBuffer/lines()`` gives it (trailing blanks cut).
    private func line(_ parts: (String, Int)...) -> String {
        var text = parts.map { String(repeating: $0.0, count: $0.1) }.joined()
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    // MARK: - A stage's life

    func testABarRunsFromItsSubscribeToItsEndWithItsValuesAndItsEnding() {
        var b = BatchBuilder()
        start(1, "Just", at: 1, &b)
        at(2, &b)
        b.value(1, "42")
        at(3, &b)
        b.finish(1)
        let s = state([b.build()])
        XCTAssertEqual(lanes(s)[1], line((" ", 9), ("├", 1), ("━", 9), ("•", 1), ("━", 9), ("✓", 1), (" ", 20)))
        XCTAssertEqual(lanes(s, theme: .plainASCII)[1],
                       line((" ", 9), ("|", 1), ("=", 9), (".", 1), ("=", 9), ("]", 1), (" ", 20)))
    }

    func testALiveStageRunsToTheRightEdge() {
        var b = BatchBuilder()
        start(1, "Timer", at: 4, &b)
        XCTAssertEqual(lanes(state([b.build()]))[1], line((" ", 39), ("├", 1), ("━", 10)))
    }

    func testABurstLooksDifferentFromOneValue() {
        var b = BatchBuilder(step: 1000)
        start(1, "Subject", at: 1, &b)
        at(2, &b)
        for _ in 0..<500 { b.value(1) }
        at(3, &b)
        b.value(1)
        let s = state([b.build()])
        XCTAssertEqual(lanes(s)[1], line((" ", 9), ("├", 1), ("━", 9), ("▇", 1), ("━", 9), ("•", 1), ("━", 20)))
        XCTAssertEqual(lanes(s, theme: .plainASCII)[1],
                       line((" ", 9), ("|", 1), ("=", 9), ("#", 1), ("=", 9), (".", 1), ("=", 20)))
        XCTAssertEqual(TimelineView.density(3, unicode: true), "▂")
        XCTAssertEqual(TimelineView.density(40, unicode: true), "▅")
        XCTAssertEqual(TimelineView.density(5_000, unicode: true), "█")
    }

    /// `.max(1)` asked once and delivered: from then on the stage waits with no demand,
    /// held back by its subscriber, and the lane says so.
    func testAStageWithNoOutstandingDemandIsDrawnAsHeld() {
        var first = BatchBuilder()
        at(1, &first)
        first.subscribe(1, op: "Subject", subscriber: "Sink")
        first.subscription(1)
        first.request(1, .count(1))
        var second = BatchBuilder()
        at(1.5, &second)
        second.value(1, "only")
        let s = state([first.build(), second.build()])
        XCTAssertEqual(lanes(s)[1], line((" ", 9), ("├", 1), ("━", 4), ("•", 1), ("┄", 35)))
        XCTAssertEqual(lanes(s, theme: .plainASCII)[1], line((" ", 9), ("|", 1), ("=", 4), (".", 1), ("-", 35)))
    }

    func testACancelSaysByWhom() {
        var b = BatchBuilder()
        at(1, &b)
        for id: NodeID in 1...3 {
            b.subscribe(id, op: "Subject\(id)", subscriber: "Sink")
            b.subscription(id)
        }
        at(2, &b)
        b.cancel(1, cause: .downstream)
        b.cancel(2, cause: .inspector)
        b.cancel(3, cause: .owner)
        let s = state([b.build()])
        let ends = lanes(s).dropFirst().prefix(3).map { $0.dropFirst(19).first }
        XCTAssertEqual(ends, ["⊘", "⊗", "⌂"])
        XCTAssertEqual(lanes(s, theme: .plainASCII).dropFirst().prefix(3).map { $0.dropFirst(19).first }, ["/", "!", "o"])
    }

    // MARK: - A group's lane

    /// `Future ×2`: one lane with each member's life, the overlap counted.
    func testAGroupShowsItsMembersOverlappingLives() {
        var b = BatchBuilder()
        at(1, &b)
        b.subscribe(1, op: "FlatMap", subscriber: "Sink")
        b.subscription(1)
        b.subscribe(2, parent: 1, op: "Future", subscriber: "FlatMap")
        b.subscription(2)
        at(2, &b)
        b.subscribe(3, parent: 1, op: "Future", subscriber: "FlatMap")
        b.subscription(3)
        at(3, &b)
        b.finish(2)
        at(4, &b)
        b.finish(3)
        let s = state([b.build()])
        let lines = lanes(s)
        XCTAssertTrue(s.tree.rows.contains { $0.group?.members == [2, 3] }, "the two Futures are one row")
        XCTAssertEqual(lines[2], line((" ", 9), ("├", 1), ("━", 9), ("2", 11), ("━", 9), ("✓", 1), (" ", 10)))
    }

    // MARK: - The cursor

    /// In the past the cursor is a column: `▼` on the ruler, the lanes reversed under it,
    /// at its moment's column, while the window stays where it was.
    func testTheCursorIsAColumnAtItsMoment() {
        var b = BatchBuilder()
        start(1, "Timer", at: 1, &b)
        for s in 2...4 {
            at(Double(s), &b)
            b.value(1)
        }
        var s = state([b.build()])
        _ = reduce(&s, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))
        _ = reduce(&s, .action(.focusNext))
        _ = reduce(&s, .action(.collapse))  // onto the value at 4 s: the window ends there
        _ = reduce(&s, .action(.collapse))  // back: no event in the column before, so the one at 3 s
        var buffer = ScreenBuffer(width: 50, height: 6)
        TimelineView.render(s, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: 50, height: 6), into: &buffer)
        let column = 49 - 10
        XCTAssertEqual(Array(buffer.lines()[0])[column], "▼", buffer.lines()[0])
        XCTAssertTrue(buffer[column, 1].style.reverse)
        XCTAssertFalse(buffer[column + 1, 1].style.reverse)
        XCTAssertEqual(Array(buffer.lines()[1])[column], "•", "the value at 3 s under the cursor")
    }

    // MARK: - The time axis

    func testTheRulerCountsBackFromNowWhileLive() {
        XCTAssertEqual(TimeRuler.line(end: t0, scale: 100_000_000, width: 50, live: true),
                       line((" ", 9), ("-4s", 1), (" ", 7), ("-3s", 1), (" ", 7), ("-2s", 1), (" ", 7), ("-1s", 1),
                            (" ", 5), ("now", 1)))
        XCTAssertEqual(TimeRuler.line(end: t0, scale: 10_000_000, width: 50, live: true),
                       line((" ", 9), ("-400ms", 1), (" ", 4), ("-300ms", 1), (" ", 4), ("-200ms", 1), (" ", 4),
                            ("-100ms", 1), (" ", 2), ("now", 1)))
    }

    /// A replay's end is no "now": its ruler gives clock times too.
    func testAReplaysRulerGivesClockTimes() {
        var s = AppState(targetName: "", pid: nil)
        _ = reduce(&s, .replaying(file: "x.pipescope", process: "lanes", pid: 1))
        _ = reduce(&s, .action(.toggleTable))
        var b = BatchBuilder()
        start(1, "Timer", at: 1, &b)
        _ = reduce(&s, .batch(b.build()))
        _ = reduce(&s, .tick(nanos: t0 + 5 * second))
        let ruler = lanes(s)[0]
        XCTAssertFalse(ruler.contains("now"), ruler)
        XCTAssertTrue(ruler.contains(String(Format.time(t0).prefix(5))), ruler)
    }

    /// In history the moment on screen is not now: the ruler gives clock times, at round
    /// seconds of the clock.
    func testTheRulerGivesClockTimesInHistory() {
        let end = t0 + 5 * second + 300_000_000
        let ruler = TimeRuler.line(end: end, scale: 100_000_000, width: 50, live: false)
        let labels = ruler.split(separator: " ").map(String.init)
        XCTAssertFalse(ruler.contains("now"))
        XCTAssertEqual(labels, [t0 + 2 * second, t0 + 4 * second].map { String(Format.time($0).prefix(8)) })
        XCTAssertEqual(ruler.distance(of: labels[0]), 16, "t0 + 2 s is 33 columns left of the right edge")
        XCTAssertEqual(ruler.distance(of: labels[1]), 36)
    }
}

private extension String {
    func distance(of text: String) -> Int? {
        range(of: text).map { distance(from: startIndex, to: $0.lowerBound) }
    }
}
