import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import PipescopeWire
import TerminalKit
import XCTest

/// Facts about the screen checked directly, independent of the golden files.
final class ScreenViewSemanticTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    private func render(_ state: AppState, _ width: Int = 80, _ height: Int = 24,
                        theme: Theme = .plainUnicode) -> ScreenBuffer {
        ViewFixtures.render(state, width: width, height: height, theme: theme)
    }

    /// The screen line showing `text`, if any.
    private func row(of text: String, in buffer: ScreenBuffer) -> Int? {
        buffer.lines().firstIndex { $0.contains(text) }
    }

    // MARK: - Selection

    func testSelectedRowIsReversedAcrossThePane() throws {
        let buffer = render(ViewFixtures.realistic(selection: 2))
        let y = try XCTUnwrap(row(of: "▾ Map ≡3", in: buffer))
        XCTAssertEqual(y, 4)
        for x in 1...78 {
            XCTAssertTrue(buffer[x, y].style.reverse, "column \(x) of the selected row")
        }
        XCTAssertFalse(buffer[0, y].style.reverse, "the border is not part of the selection")
        XCTAssertFalse(buffer[79, y].style.reverse)
        for other in [3, 5, 6] {
            XCTAssertFalse(buffer[1, other].style.reverse, "row \(other) is not selected")
        }
    }

    func testWithoutSelectionTheFirstRowIsHighlighted() {
        let buffer = render(ViewFixtures.realistic(selection: nil))
        XCTAssertTrue(buffer[1, 3].style.reverse)
        XCTAssertFalse(buffer[1, 4].style.reverse)
        XCTAssertTrue(buffer.lines().contains {
            $0.hasPrefix("│Filter<Map<PassthroughSubject<Int, Never>, Int>>   ")
        }, "the detail pane shows the first row's stage")
    }

    /// The line of the selected (reversed) tree row; the status bar (line 0) is reversed too.
    private func selectedLine(_ buffer: ScreenBuffer) -> Int? {
        // Row 1 is the tree's box, whose title is in reverse when it has the focus.
        (2..<buffer.height - 1).first { buffer[1, $0].style.reverse }
    }

    func testScrolledTreeKeepsTheSelectionVisible() {
        var state = ViewFixtures.deep(depth: 20, selection: 20)
        var buffer = render(state)
        let line = try? XCTUnwrap(selectedLine(buffer), "the selected row is on screen")
        XCTAssertTrue(line.map { buffer.lines()[$0].contains("Scan") } == true, "\(buffer.lines())")
        state.tree.selection = 1
        buffer = render(state)
        XCTAssertTrue(buffer.lines()[3].contains("▾ Map → Sink"), buffer.lines()[3])
    }

    func testPageSizeMatchesTheVisibleTreeRows() {
        for (width, height) in [(80, 24), (120, 40), (ScreenView.minimumWidth, ScreenView.minimumHeight)] {
            let depth = 60
            let buffer = render(ViewFixtures.deep(depth: depth, selection: 1), width, height)
            let shown = buffer.lines().filter { $0.contains("● active") && $0.contains("       1 │") }.count
            XCTAssertEqual(ScreenView.treePageSize(width: width, height: height), shown, "\(width)x\(height)")
        }
    }

    /// The page size arrives with the size, through the reducer: paging moves by exactly
    /// the rows the layout shows.
    func testPagingMovesByTheRowsTheLayoutShows() {
        for (width, height) in [(80, 24), (120, 40)] {
            var state = ViewFixtures.deep(depth: 60, selection: 1)
            _ = reduce(&state, ScreenView.resized(width: width, height: height))
            let page = ScreenView.treePageSize(width: width, height: height)
            XCTAssertEqual(state.tree.pageSize, page, "\(width)x\(height)")
            _ = reduce(&state, .action(.pageDown))
            XCTAssertEqual(state.tree.selection, NodeID(1 + page), "\(width)x\(height)")
        }
    }

    /// Indentation grows two columns per level without limit, so past about 24 levels
    /// on 80 columns the operator name has no room left at all.
    func testVeryDeepStagesStillShowTheirName() {
        let buffer = render(ViewFixtures.deep(depth: 30, selection: 30))
        let line = selectedLine(buffer).map { buffer.lines()[$0] } ?? ""
        XCTAssertTrue(line.contains("DropFirst"), "the selected stage's row has no name: \(line)")
    }

    // MARK: - Bars

    func testStatusBarSaysWhatIsAttached() {
        var state = ViewFixtures.realistic()
        var b = BatchBuilder(start: ViewFixtures.t0 + 2 * ViewFixtures.second)
        b.value(3, "6")
        _ = reduce(&state, .batch(b.build(sequence: 100, dropped: 12_345)))
        let top = render(state).lines()[0]
        for part in ["pipescope", "demo", "(pid 4242)", "LIVE", "ev/s", "dropped 12345", "? help"] {
            XCTAssertTrue(top.contains(part), "\(part) in \(top)")
        }
        XCTAssertTrue(render(state)[1, 0].style.reverse, "the status bar is reversed")
    }

    func testHintBarListsTheKeyMapHints() {
        let bottom = render(ViewFixtures.realistic()).lines()[23]
        for hint in KeyMap.hints {
            XCTAssertTrue(bottom.contains(hint), "\(hint) in \(bottom)")
        }
    }

    func testDisconnectedHintBarShowsTheReason() {
        for (width, height) in [(80, 24), (120, 40)] {
            let lines = render(ViewFixtures.disconnected(), width, height).lines()
            // What still works comes first, so it is what a narrow screen keeps.
            XCTAssertTrue(lines[height - 1].hasPrefix(" [ ] g history  s save  r wait for restart  q quit · ended: the program"),
                          lines[height - 1])
            if width >= 120 {
                XCTAssertTrue(lines[height - 1].contains("ended: the program closed the connection"), lines[height - 1])
            }
            XCTAssertTrue(lines[0].contains("ENDED"), lines[0])
            XCTAssertTrue(lines.contains { $0.contains("Filter → Sink") }, "the graph stays on screen")
        }
    }

    // MARK: - Help

    /// Every line the help shows, paging down through it (it scrolls when it does not fit).
    private func helpLines(_ width: Int, _ height: Int) -> [String] {
        var state = ViewFixtures.help()
        _ = reduce(&state, ScreenView.resized(width: width, height: height))
        var lines: [String] = []
        // Long lines wrap, so there are more lines than keys: page until past the end.
        for _ in 0...(3 * KeyMap.bindings.count / max(1, height - 5) + 1) {
            lines += render(state, width, height).lines()
            _ = reduce(&state, .action(.pageDown))
        }
        return lines
    }

    func testHelpOverlayShowsEveryBinding() {
        let lines = helpLines(120, 40)
        for binding in KeyMap.bindings {
            XCTAssertTrue(lines.contains { $0.contains(" " + binding.label + " ") && $0.contains(binding.help) },
                          "\(binding.label): \(binding.help)")
        }
        XCTAssertTrue(lines.contains { $0.contains("? or Esc closes") })
    }

    func testHelpOverlayAtTheSmallestSizeShowsEveryBinding() {
        let lines = helpLines(ScreenView.minimumWidth, ScreenView.minimumHeight)
        XCTAssertTrue(lines.contains { $0.contains("scroll 1-") }, "the footer says it scrolls")
        for binding in KeyMap.bindings {
            XCTAssertTrue(lines.contains { $0.contains(" " + binding.label + " ") }, "\(binding.label) is missing")
        }
    }

    // MARK: - Detail pane

    func testFailedStageShowsItsError() {
        for (width, height) in [(80, 24), (120, 40)] {
            let lines = render(ViewFixtures.failedSelected(), width, height).lines()
            XCTAssertTrue(lines.contains { $0.contains("status ✗ failed") }, "the status says failed")
            XCTAssertTrue(lines.contains { $0.contains("error: ParseError.notANumber(\"x\")") },
                          "the error text is cut at \(width)x\(height)")
        }
    }

    func testDetailShowsValuesAndLastValueAt80x24() {
        let lines = render(ViewFixtures.realistic(selection: 2)).lines()
        XCTAssertTrue(lines.contains { $0.contains("values 5  last 50") },
                      "the values line does not fit the 80x24 detail pane")
    }

    func testLongLastValueEndsWithAnEllipsis() throws {
        let buffer = render(ViewFixtures.longLastValue(), 120, 40)
        let line = try XCTUnwrap(buffer.lines().first { $0.contains("last User(id: 42") })
        // The detail pane is followed by the event log at this size; look at its own part.
        let detail = line.components(separatedBy: "││").first ?? line
        XCTAssertTrue(detail.hasSuffix("…"), detail)
        XCTAssertFalse(line.contains("END)"))
    }

    func testControlCharactersInValuesAreSanitised() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Just", subscriber: "Sink")
        b.value(1, "two\nlines\tand\u{7}bell")
        var state = ViewFixtures.connected(b.build())
        state.tree.selection = 1
        let lines = render(state, 120, 40).lines()
        XCTAssertTrue(lines.contains { $0.contains("last two?lines and?bell") }, lines.joined(separator: "\n"))
    }

    // MARK: - Tree columns

    func testStatusWordsAreNotCut() {
        let lines = render(ViewFixtures.statuses()).lines()
        for word in ["subscribing", "finished", "active", "cancelled"] {
            XCTAssertTrue(lines[3...6].contains { $0.contains(word) }, "\(word) is cut in the tree")
        }
    }

    func testTitleCountsStagesInEnglish() {
        var b = BatchBuilder()
        b.subscribe(1, op: "Just", subscriber: "Sink")
        let top = render(ViewFixtures.connected(b.build())).lines()[1]
        XCTAssertTrue(top.contains("Pipelines (1 stage)"), top)
    }

    // MARK: - Themes

    func testASCIIThemeDrawsOnlyASCII() {
        let screens: [(String, AppState)] = [
            ("realistic", ViewFixtures.realistic()), ("help", ViewFixtures.help()),
            ("disconnected", ViewFixtures.disconnected()), ("statuses", ViewFixtures.statuses()),
            ("empty", AppState(targetName: "demo")), ("grouped", ViewFixtures.grouped()),
            ("warnings", ViewFixtures.groupedWarnings()),
        ]
        for (name, state) in screens {
            for (y, line) in render(state, theme: .plainASCII).lines().enumerated() {
                let odd = line.unicodeScalars.filter { !$0.isASCII }
                XCTAssertTrue(odd.isEmpty, "\(name) line \(y) has \(String(String.UnicodeScalarView(odd))): \(line)")
            }
        }
    }

    func testColourThemeColoursStatuses() throws {
        let theme = Theme(glyphs: .unicode, colors: true)
        let buffer = render(ViewFixtures.realistic(selection: 1), theme: theme)
        let failedRow = try XCTUnwrap(row(of: "TryMap → Sink", in: buffer))
        let x = try XCTUnwrap(buffer.lines()[failedRow].firstIndex(of: "✗")).utf16Offset(in: buffer.lines()[failedRow])
        XCTAssertEqual(buffer[x, failedRow].style.foreground, .red)
        XCTAssertTrue(buffer[x, failedRow].style.bold)
        XCTAssertEqual(buffer[0, 1].style.foreground, .yellow, "the focused pane's border is yellow")
        let stageBox = try XCTUnwrap(buffer.lines().firstIndex { $0.contains("Stage") && $0.hasPrefix("┌") })
        XCTAssertEqual(buffer[0, stageBox].style.foreground, .cyan, "other borders are cyan")
    }

    // MARK: - Too small

    func testTooSmallSaysWhatIsNeeded() {
        let lines = render(ViewFixtures.realistic(), 40, 10).lines()
        XCTAssertEqual(lines.count, 10, "one line a row")
        XCTAssertEqual(Array(lines.prefix(2)), ["Terminal too small", "need 50x22, have 40x10"])
        XCTAssertTrue(lines.dropFirst(3).allSatisfy(\.isEmpty))
        let one = render(ViewFixtures.realistic(), 49, 30).lines()
        XCTAssertEqual(one[1], "need 50x22, have 49x30")
        XCTAssertEqual(render(ViewFixtures.realistic(), 10, 1).lines(), ["Terminal …"])
    }

    // MARK: - Demand and values

    /// A stage that asked for 3 and got 1 has 2 outstanding; the detail lists its requests
    /// and its recent values with their times, newest last.
    func testOutstandingDemandRecentRequestsAndValues() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .count(2))
        b.value(1, "first")
        b.demand(1, .count(1))
        var later = BatchBuilder(start: b.now)
        later.value(1, "second")
        var state = ViewFixtures.connected(b.build(), later.build())
        _ = reduce(&state, .action(.moveDown))
        let lines = render(state, 120, 40).lines()
        let row = try XCTUnwrap(lines.first { $0.contains("Map → Sink") })
        XCTAssertTrue(row.contains("● active           3    1       2"), row)
        let screen = lines.joined(separator: "\n")
        XCTAssertTrue(screen.contains("requests +2 12:00:00.002 · +1 12:00:00.004 (returned)"), screen)
        XCTAssertTrue(screen.contains("recent values"), screen)
        let values = lines.compactMap { line in
            ["12:00:00.003  first", "12:00:00.005  second"].first { line.contains("│  " + $0) }
        }
        XCTAssertEqual(values, ["12:00:00.003  first", "12:00:00.005  second"])
    }

    // MARK: - Owners

    /// An owner's pipelines sit under its heading, which counts them and says when the
    /// owner was released; the heading cannot be selected.
    func testAnOwnersPipelinesAreGroupedUnderItsHeading() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscribe(2, op: "Timer", subscriber: "Sink")
        b.subscribe(3, op: "Scan", subscriber: "Sink")
        b.add(.owned, 1) { $0.other = 7; $0.text = "ProfileScreen" }
        b.add(.owned, 3) { $0.other = 7; $0.text = "ProfileScreen" }
        var state = ViewFixtures.connected(b.build())
        var lines = render(state, 120, 40).lines()
        let heading = try XCTUnwrap(lines.firstIndex { $0.contains("⌂ ProfileScreen  owner of 2 pipelines") })
        XCTAssertTrue(lines[heading + 1].hasPrefix("│    Map → Sink"), lines[heading + 1])
        XCTAssertTrue(lines[heading + 2].hasPrefix("│    Scan → Sink"), lines[heading + 2])
        XCTAssertTrue(lines[heading + 3].hasPrefix("│  Timer → Sink"), lines[heading + 3])
        XCTAssertEqual(state.tree.rows.filter(\.isStage).map(\.id), [1, 3, 2], "the grouped roots, then the others")

        var released = BatchBuilder(start: b.now)
        released.add(.ownerReleased, 0) { $0.other = 7; $0.text = "ProfileScreen" }
        _ = reduce(&state, .batch(released.build()))
        lines = render(state, 120, 40).lines()
        XCTAssertTrue(lines.contains { $0.contains("⌂ ProfileScreen  owner of 2 pipelines · released") })
    }
}

/// The detail pane says when the newest values carry no text, and `v` watches a stage.
final class ValueTextDetailTests: XCTestCase {
    private func state() -> AppState {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.value(1, "Reading(kitchen: 21.5)")
        b.value(1)
        var state = AppState(targetName: "t")
        _ = reduce(&state, .attached(process: "t", pid: 1))
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .batch(b.build()))
        state.tree.selection = 1
        return state
    }

    /// The detail pane's line under "values 2  last …".
    private func captureLine(_ state: AppState) -> String? {
        let lines = ViewFixtures.render(state, width: 120, height: 40, theme: .plainUnicode).lines()
        guard let i = lines.firstIndex(where: { $0.contains("│values 2  last Reading(kitchen: 21.5)") }) else { return nil }
        return lines[i + 1]
    }

    func testASampledStageSaysItsNewestValuesWereNotDescribed() {
        let line = captureLine(state())
        XCTAssertTrue(line?.hasPrefix("│1 newer value not described: sampled, 1 per 25 ms (v: all)  ") == true,
                      line ?? "no values line")
    }

    func testLastIsTheLastValueDescribedWithItsTime() throws {
        let s = state()
        let node = try XCTUnwrap(s.cursor.graph[1])
        let described = try XCTUnwrap(node.lastDescribedNanos)
        XCTAssertNotEqual(node.lastValueNanos, described, "a newer value came, without words")
        var seconds = time_t(described / 1_000_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let time = String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec,
                          Int(described / 1_000_000 % 1000))
        let lines = ViewFixtures.render(s, width: 120, height: 40, theme: .plainUnicode).lines()
        let i = try XCTUnwrap(lines.firstIndex { $0.contains("│values 2  last ") }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[i].hasPrefix("│values 2  last Reading(kitchen: 21.5) at \(time)  "), lines[i])
        XCTAssertTrue(lines[i + 1].hasPrefix("│1 newer value not described: sampled, 1 per 25 ms (v: all)  "), lines[i + 1])
    }

    func testVWatchesTheSelectedStageAndVAgainStops() {
        var s = state()
        XCTAssertEqual(reduce(&s, .action(.toggleWatch)), [.watch([1])])
        XCTAssertTrue(captureLine(s)?.hasPrefix("│watched: every value described (v stops)  ") == true)
        XCTAssertEqual(s.session.notice?.text, "watching #1 Map: every value is described, on the program's thread (v stops)")
        XCTAssertEqual(reduce(&s, .action(.toggleWatch)), [.watch([])])
        XCTAssertTrue(captureLine(s)?.hasPrefix("│1 newer value not described") == true)
    }

    func testARecordingCannotBeWatched() {
        var s = state()
        _ = reduce(&s, .replaying(file: "f", process: "t", pid: 1))
        XCTAssertEqual(reduce(&s, .action(.toggleWatch)), [])
        XCTAssertEqual(s.session.notice?.text, "this is a recording: its values were captured as it was recorded")
    }
}
