import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// The Stage pane on a short screen (#43 item 3): at 80x24 it has six rows for a text of
/// twenty, so Tab gives it the focus, it grows, and the arrows scroll it to every line;
/// the title says how much is shown. Driven as the app drives it: each key, then the
/// text's length measured with the views' layout (`ScreenView.detailLines`).
final class StagePaneScrollTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// `Map ← PassthroughSubject`, the Map made at Feed.swift:40 called through four
    /// frames, asked for one value at a time six times and given six.
    private func state(width: Int, height: Int) -> AppState {
        var b = BatchBuilder()
        let frames = (1...4).map { BatchBuilder.at("Caller\($0).swift", 10 * $0, "Caller\($0).run()") }
        b.subscribe(1, op: "Map", type: "Map<PassthroughSubject<Int, Never>, String>", subscriber: "Sink",
                    location: BatchBuilder.at("Feed.swift", 40), frames: frames)
        b.subscribe(2, parent: 1, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "Map")
        b.subscription(2)
        b.subscription(1)
        for n in 1...6 {
            b.request(1, .count(1))
            b.request(2, .count(1))
            b.value(2, "\(n)")
            b.value(1, "value \(n)")
        }
        var state = ViewFixtures.connected(b.build())
        _ = reduce(&state, ScreenView.resized(width: width, height: height))
        state.tree.selection = 1
        measure(&state)
        return state
    }

    private func measure(_ state: inout AppState) {
        if let lines = ScreenView.detailLines(state, theme: .plainUnicode) { _ = reduce(&state, .detailLines(lines)) }
    }

    private func press(_ action: Action, _ state: inout AppState) {
        _ = reduce(&state, .action(action))
        measure(&state)
    }

    private func screen(_ state: AppState) -> [String] {
        ViewFixtures.render(state, width: state.width, height: state.height, theme: .plainUnicode).lines()
    }

    /// The Stage pane's box: its title line and the lines inside it.
    private func stagePane(_ lines: [String]) throws -> (title: String, body: [String]) {
        let top = try XCTUnwrap(lines.firstIndex { $0.contains("┌ Stage") }, lines.joined(separator: "\n"))
        let bottom = try XCTUnwrap(lines[(top + 1)...].firstIndex { $0.hasPrefix("└") })
        return (lines[top], lines[(top + 1)..<bottom].map { String($0.dropFirst().dropLast()) })
    }

    func testAtEightyByTwentyFourTabAndTheArrowsReachEveryLine() throws {
        var state = state(width: 80, height: 24)
        let total = try XCTUnwrap(state.detail.lines)
        XCTAssertEqual(total, 18, "type, id, place, 4 callers, status, demand, values, requests, created, "
                       + "the recent values' heading and the newest 5")
        var pane = try stagePane(screen(state))
        XCTAssertTrue(pane.title.hasPrefix("┌ Stage: 6 of 18 lines, Tab scrolls ─"), pane.title)
        XCTAssertFalse(pane.body.contains { $0.contains("  value 6") }, "the newest value is below the fold")

        press(.focusNext, &state)
        XCTAssertEqual(state.focus, .detail)
        var lines = screen(state)
        pane = try stagePane(lines)
        XCTAssertEqual(pane.body.count, 11, "with the focus the Stage pane takes three fifths of the body")
        XCTAssertTrue(pane.title.hasPrefix("┌ Stage: lines 1-11 of 18 ↑↓ * ─"), pane.title)
        XCTAssertTrue(pane.body[0].hasPrefix("Map<PassthroughSubject<Int, Never>, String>"))
        XCTAssertTrue(lines.contains { $0.contains("▾ Map") }, "the tree still shows the selected stage")
        XCTAssertTrue(lines.last?.contains("the timeline and the event log need 120x30") == true, lines.last ?? "")

        press(.moveDown, &state)
        lines = screen(state)
        XCTAssertTrue(lines.last?.contains("↑↓ PgUp PgDn scroll") == true, lines.last ?? "")
        pane = try stagePane(lines)
        XCTAssertTrue(pane.title.contains("lines 2-12 of 18"), pane.title)
        XCTAssertTrue(pane.body[0].hasPrefix("#1 → Sink"), pane.body[0])
        XCTAssertEqual(state.tree.current, .stage(1), "the arrows scroll the pane, not the tree")

        press(.end, &state)
        pane = try stagePane(screen(state))
        XCTAssertTrue(pane.title.contains("lines 8-18 of 18"), pane.title)
        XCTAssertTrue(pane.body.last?.contains("value 6") == true, "the newest value: \(pane.body)")
        // No dead keys past the end: one ↑ after ↓ at the bottom moves the text at once.
        press(.moveDown, &state)
        press(.moveUp, &state)
        XCTAssertTrue(try stagePane(screen(state)).title.contains("lines 7-17 of 18"))
        press(.home, &state)
        XCTAssertTrue(try stagePane(screen(state)).title.contains("lines 1-11 of 18"))
        press(.pageDown, &state)
        XCTAssertTrue(try stagePane(screen(state)).title.contains("lines 8-18 of 18"), "PgDn goes a page, no further than the end")

        // Another stage starts at its top; back on the first, the same.
        press(.focusNext, &state)
        XCTAssertEqual(state.focus, .tree)
        press(.moveDown, &state)
        XCTAssertEqual(state.tree.current, .stage(2))
        XCTAssertEqual(state.detail.offset(for: state.tree.current), 0)
        press(.focusNext, &state)
        XCTAssertTrue(try stagePane(screen(state)).body[0].hasPrefix("PassthroughSubject<Int, Never>"))
    }

    /// A live stage's text grows as values come (its recent values, a time line): End,
    /// or scrolling down to the last line, keeps to the end, as a log view does.
    func testTheEndStaysTheEndAsTheTextGrows() {
        var scroll = DetailScroll()
        scroll.lines = 18
        scroll.scroll(by: Int.max / 2, page: 11, current: .stage(1))
        XCTAssertEqual(scroll.offset(for: .stage(1)), .max, "at the end")
        scroll.lines = 22
        scroll.scroll(by: -1, page: 11, current: .stage(1))
        XCTAssertEqual(scroll.offset(for: .stage(1)), 10, "one up from the new end (lines 11-21 of 22)")
        scroll.scroll(by: 1, page: 11, current: .stage(1))
        XCTAssertEqual(scroll.offset(for: .stage(1)), .max, "down to the end: at the end again")
        scroll.scroll(by: -3, page: 11, current: .stage(1))
        XCTAssertEqual(scroll.offset(for: .stage(1)), 8)
        scroll.lines = 30
        XCTAssertEqual(scroll.offset(for: .stage(1)), 8, "above the end, growth does not move it")
    }

    /// 160x48 gives the pane 17 rows: unfocused, the oldest recent value is the one line
    /// left out (callers and the newest values shown); Tab reaches the pane among the
    /// four, and ↓ shows the rest.
    func testAtOneSixtyByFortyEightOneLineIsLeftAndReachable() throws {
        var state = state(width: 160, height: 48)
        var pane = try stagePane(screen(state))
        XCTAssertTrue(pane.title.hasPrefix("┌ Stage: 17 of 18 lines, Tab scrolls ─"), pane.title)
        XCTAssertTrue(pane.body.contains { $0.contains("value 6") })
        XCTAssertFalse(pane.body.contains { $0.contains("value 2") })
        XCTAssertTrue(pane.body.contains { $0.contains("called from Caller4.swift:40") }, "\(pane.body)")
        while state.focus != .detail { press(.focusNext, &state) }
        pane = try stagePane(screen(state))
        XCTAssertTrue(pane.title.hasPrefix("┌ Stage: lines 1-17 of 18 ↑↓ * ─"), pane.title)
        press(.moveDown, &state)
        press(.moveDown, &state)
        pane = try stagePane(screen(state))
        XCTAssertTrue(pane.title.contains("lines 2-18 of 18"), pane.title)
        XCTAssertTrue(pane.body[0].hasPrefix("#1 → Sink"), pane.body[0])
        XCTAssertTrue(pane.body.contains { $0.contains("value 2") })
    }

    /// A wait and a warning are shown whole, however many lines they take: the pane
    /// scrolls, and what to do comes last in both (a zip of payments with confirmations
    /// nobody sends, at 80x24: the wait takes two lines, the warning four).
    func testTheWaitAndTheWarningAreWholeAtEightyByTwentyFour() throws {
        var b = BatchBuilder(step: 1_000_000_000)
        b.subscribe(1, op: "Zip", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Zip")
        b.subscribe(3, parent: 1, op: "PassthroughSubject", subscriber: "Zip")
        for id: NodeID in [3, 2, 1] { b.subscription(id) }
        for id: NodeID in [1, 2, 3] { b.request(id, .unlimited) }
        for _ in 1...5 { b.value(2) }
        var state = AppState(targetName: "shop", pid: 1)
        _ = reduce(&state, .attached(process: "shop", pid: 1))
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: b.now + 60_000_000_000))
        _ = reduce(&state, ScreenView.resized(width: 80, height: 24))
        state.tree.selection = 1
        measure(&state)
        press(.focusNext, &state)
        press(.end, &state)
        let text = try stagePane(screen(state)).body.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        XCTAssertTrue(text.contains("⚠ zip-unpaired: holds 5 values"), text)
        XCTAssertTrue(text.contains("Make it send, or do not zip what should go on without it."), "the advice, whole: \(text)")
        XCTAssertFalse(text.contains("…"), "nothing cut: \(text)")
    }
}
