import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
@testable import PipescopeViews
import TerminalKit
import XCTest

/// What a newcomer trips on (issue #24), on screen: a pipeline's name keeps its source
/// and its sink, the cancel confirmation and the bottom line say the same true thing,
/// one pipeline's tree lists only its events, the help wraps and never cuts and says
/// what quitting does, and a read-only inspector says so.
final class ScreensSayWhatIsTrueTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    private func press(_ state: inout AppState, _ keys: Key...) -> [Effect] {
        keys.flatMap { key in KeyMap.action(for: key, in: state.layer).map { reduce(&state, .action($0)) } ?? [] }
    }

    private func screen(_ state: AppState, _ width: Int = 80, _ height: Int = 24, theme: Theme = .plainUnicode) -> [String] {
        ViewFixtures.render(state, width: width, height: height, theme: theme).lines()
    }

    // MARK: - who cancelled (#43 item 4)

    /// The tree's STATUS, the detail and the timeline's lane end all say who cancelled a
    /// stage: `⊗` the inspector, `⌂` its owner, `⊘` its downstream (the legend's glyphs).
    func testTheStatusGlyphSaysWhoCancelled() {
        for (cause, glyph) in [(CancelCause.inspector, "⊗"), (.owner, "⌂"), (.downstream, "⊘")] {
            var b = BatchBuilder()
            b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
            b.cancel(1, cause: cause)
            var state = ViewFixtures.connected(b.build())
            state.tree.selection = 1
            let lines = screen(state, 120, 40)
            let row = lines.first { $0.contains("Map") && $0.contains("cancelled") } ?? ""
            XCTAssertTrue(row.contains("\(glyph) cancelled"), "\(cause): \(row)")
            XCTAssertTrue(lines.contains { $0.contains("status \(glyph) cancelled") }, "\(cause): the detail")
        }
    }

    // MARK: - PIPELINE (item 8)

    func testANameIsCutInTheMiddleKeepingItsSourceAndSink() {
        let chain = PipelineName(parts: ["PassthroughSubject", "Map", "Filter", "Sink"], named: false)
        let cases: [(Int, String)] = [
            (41, "PassthroughSubject → Map → Filter → Sink"),
            (38, "PassthroughSubject → … → Filter → Sink"),
            (30, "PassthroughSubject → … → Sink"),
            (27, "PassthroughSubj… → … → Sink"),
            (17, "Passt… → … → Sink"),
        ]
        for (width, expected) in cases {
            XCTAssertEqual(TableView.shortened(chain, width: width, theme: .plainUnicode), expected, "\(width)")
        }
        let just = PipelineName(parts: ["Just", "Map", "Filter", "Sink"], named: false)
        XCTAssertEqual(TableView.shortened(just, width: 15, theme: .plainUnicode), "Just → … → Sink")
        // Named after the function that built it, a narrow cell keeps the function.
        let built = PipelineName(parts: ["DemoProgram.startUpload", "PassthroughSubject", "Scan", "Map", "Sink"],
                                 named: false, built: true)
        XCTAssertEqual(TableView.shortened(built, width: 40, theme: .plainUnicode), "DemoProgram.startUpload → … → Map → Sink")
        XCTAssertEqual(TableView.shortened(built, width: 27, theme: .plainUnicode), "DemoProgram.startUpload …")
        XCTAssertEqual(TableView.shortened(built, width: 20, theme: .plainUnicode), "DemoProg… → … → Sink")
        let two = PipelineName(parts: ["PassthroughSubject", "Sink"], named: false)
        XCTAssertEqual(TableView.shortened(two, width: 20, theme: .plainUnicode), "PassthroughS… → Sink")
        // In ASCII the theme spells `…` and `→` wider, and the cut makes room for them.
        XCTAssertEqual(Theme.plainASCII.text(TableView.shortened(chain, width: 30, theme: .plainASCII)),
                       "PassthroughS... -> ... -> Sink")
    }

    /// At 80 and 120 columns each row of the realistic table shows its source and its
    /// sink.
    func testTheTableShowsEverySourceAndSink() {
        for (width, height) in [(80, 24), (120, 40)] {
            var state = ViewFixtures.connected([BatchFixtures.realisticBatch()], page: .table)
            _ = reduce(&state, ScreenView.resized(width: width, height: height))
            let lines = screen(state, width, height)
            for row in state.table.rows {
                let line = lines.first { $0.contains(" #\(row.id) ") } ?? ""
                XCTAssertTrue(line.contains(" " + row.name.parts[0].prefix(4)), "source of #\(row.id): \(line)")
                XCTAssertTrue(line.contains(row.name.sink + " "), "sink of #\(row.id): \(line)")
            }
        }
    }

    // MARK: - The cancel confirmation (item 11)

    /// FlatMap (#1) shares its subscription with nobody.
    private func lonelyFlatMap() -> AppState {
        var b = BatchBuilder()
        b.subscribe(1, op: "FlatMap", type: "FlatMap<PassthroughSubject<Int, Never>, Just<Int>>", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Just", type: "Just<Int>", subscriber: "FlatMap")
        b.subscription(2)
        b.subscription(1)
        var state = ViewFixtures.connected(b.build())
        state.tree.selection = 1
        return state
    }

    func testAStageThatSharesWithNobodySaysNothingAboutSharing() {
        var state = lonelyFlatMap()
        _ = press(&state, .character("c"))
        let lines = screen(state)
        XCTAssertTrue(lines.contains { $0.contains("Cancel #1 FlatMap?") }, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("share") }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains("│ cancels its subscription ") })
        XCTAssertTrue(lines.contains { $0.contains("downstream: no live stage left without a completion") })
    }

    func testASharedSubscriptionNamesTheOthersNotItself() {
        var state = ViewFixtures.realistic(selection: 2)
        _ = press(&state, .character("c"))
        let lines = screen(state, 120, 40)
        XCTAssertTrue(lines.contains { $0.contains("cancels its subscription, which it shares with: #1 Filter, #3 PassthroughSubject") },
                      lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("#2 Map,") || $0.hasSuffix("#2 Map") })
    }

    /// At 50 columns the dialog wraps what the cancel reaches rather than cut it, and a
    /// one-pipeline tree's title cuts its name in the middle.
    func testNarrowScreensWrapTheDialogAndCutTitlesInTheMiddle() {
        var state = ViewFixtures.realistic(selection: 2)
        _ = press(&state, .character("c"))
        let lines = screen(state, 50, 22)
        XCTAssertFalse(lines.contains { $0.hasSuffix("…│") }, lines.joined(separator: "\n"))
        let text = lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        XCTAssertTrue(text.contains("with: #1 Filter, #3 PassthroughSubject"), text)
        _ = press(&state, .escape, .enter)
        XCTAssertTrue(screen(state)[1].contains("only (Esc: back to the table): PassthroughSubject → … → Sink"),
                      screen(state)[1])
    }

    /// The dialog and the bottom line say the same, and it is what the keys do: `y`
    /// cancels, `q` quits, any other key (bound or not) keeps the stage.
    func testTheDialogAndTheBottomLineSayWhatTheKeysDo() {
        let said = " y cancels it  q quits  any other key keeps it"
        for key in [Key.character("n"), .escape, .character("z"), .character("5"), .function(5), .control("x")] {
            var state = lonelyFlatMap()
            _ = press(&state, .character("c"))
            let lines = screen(state)
            XCTAssertEqual(lines[23], said)
            XCTAssertTrue(lines.contains { $0.contains("y cancels it   q quits   any other key keeps it") },
                          lines.joined(separator: "\n"))
            XCTAssertEqual(press(&state, key), [], "\(key)")
            XCTAssertEqual(state.layer, .browsing, "\(key) keeps the stage and closes the confirmation")
            XCTAssertEqual(state.session.notice?.text, "not cancelled")
        }
        var state = lonelyFlatMap()
        XCTAssertEqual(press(&state, .character("c"), .character("y")), [.cancelNode(1)])
        state = lonelyFlatMap()
        XCTAssertEqual(press(&state, .character("c"), .character("q")), [.quit])
    }

    // MARK: - One pipeline's events (item 12)

    func testOnePipelinesTreeShowsOnlyItsEvents() {
        var state = ViewFixtures.realistic(selection: 4)
        _ = reduce(&state, .action(.openPipeline))
        _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
        let lines = screen(state, 120, 40)
        let title = lines.firstIndex { $0.contains("Events of pipeline #4") }
        let at = try? XCTUnwrap(title, lines.joined(separator: "\n"))
        guard let at else { return }
        // The events pane is the bottom right one: from its title to the bottom border.
        let column = lines[at].distance(from: lines[at].startIndex, to: lines[at].range(of: "Events of")!.lowerBound)
        let pane = lines[(at + 1)..<38].map { String($0.dropFirst(column - 1)) }
        XCTAssertTrue(pane[0].contains("pipeline #4 only  (f: only #"), pane[0])
        let events = pane.dropFirst().filter { $0.contains(":") }
        XCTAssertFalse(events.isEmpty)
        for line in events {
            XCTAssertTrue(line.contains("#4 ") || line.contains("#5 "), "only #4 and #5: \(line)")
        }
        // The timeline screen's log says the same.
        _ = reduce(&state, .action(.toggleTimeline))
        XCTAssertTrue(screen(state, 120, 40).contains { $0.contains("Events of pipeline #4") })
    }

    // MARK: - Help (item 14)

    /// Every line the help shows, paging down through it.
    private func helpPages(_ state: AppState, _ width: Int, _ height: Int, theme: Theme) -> [[String]] {
        var state = state
        _ = reduce(&state, ScreenView.resized(width: width, height: height, theme: theme, quitting: KeyMap.Quitting(state)))
        _ = reduce(&state, .action(.toggleHelp))
        var pages: [[String]] = []
        for _ in 0..<40 {
            pages.append(screen(state, width, height, theme: theme))
            guard pages.last?.contains(where: { $0.range(of: #"scroll [0-9]+-([0-9]+)/\1\b"#, options: .regularExpression) != nil }) == false,
                  pages.last?.contains(where: { $0.contains("scroll ") }) == true else { break }
            _ = reduce(&state, .action(.pageDown))
        }
        return pages
    }

    /// At 120x40, 80x24 and the smallest size, no line of the help is cut: long ones
    /// wrap under their description, and what does not fit scrolls to every key.
    func testTheHelpWrapsAndScrollsAndNeverCuts() {
        for (width, height) in [(120, 40), (80, 24), (ScreenView.minimumWidth, ScreenView.minimumHeight)] {
            for theme in [Theme.plainUnicode, .plainASCII] {
                let pages = helpPages(ViewFixtures.realistic(), width, height, theme: theme)
                let inside = pages.flatMap { page -> [String] in
                    // The box's lines, between its borders: where its title line says.
                    let corner = theme.glyphs.isUnicode ? "┐" : "+"
                    guard let top = page.firstIndex(where: { $0.contains("Keys ") }),
                          let left = page[top].range(of: theme.glyphs.isUnicode ? "┌ Keys" : "+ Keys") else { return [] }
                    let x = page[top].distance(from: page[top].startIndex, to: left.lowerBound)
                    let right = page[top][left.upperBound...].range(of: corner).map {
                        page[top].distance(from: page[top].startIndex, to: $0.lowerBound)
                    } ?? page[top].count
                    let rows = page[(top + 1)...].map { String(Array($0)[min($0.count, x + 1)..<min($0.count, right)]) }
                    // Up to the footer: a description cut by the page goes on on the next.
                    return Array(rows.prefix { !$0.contains("Esc closes") })
                }
                let ellipsis = theme.glyphs.ellipsis
                for line in inside where line.hasSuffix(ellipsis) || line.hasSuffix(ellipsis + " ") {
                    XCTFail("\(width)x\(height): cut: \(line)")
                }
                let text = inside.joined(separator: " ").split(separator: " ").joined(separator: " ")
                for binding in KeyMap.bindings {
                    let help = theme.text(KeyMap.help(of: binding, quitting: .programKeepsRunning))
                        .split(separator: " ").joined(separator: " ")
                    XCTAssertTrue(text.contains(help), "\(width)x\(height) \(theme.glyphs.isUnicode): \(help)")
                }
                XCTAssertTrue(text.contains(theme.text("marks: ⚠ lint ≡N shares #N's subscription ◆ cursor ▶ next at the gate ×N group")),
                              "\(width)x\(height): the marks line whole")
            }
        }
    }

    func testTheHelpSaysWhatQuittingDoesToTheProgram() {
        var demo = ViewFixtures.realistic()
        demo.quitStopsProgram = true
        var replay = ViewFixtures.realistic()
        _ = reduce(&replay, .replaying(file: "demo.pipescope", process: "demo", pid: 1))
        for (state, said) in [(ViewFixtures.realistic(), "q      quit (the program keeps running)"),
                              (demo, "q      quit, and stop the demo program that pipescope started"),
                              (replay, "q      quit ")] {
            let lines = helpPages(state, 120, 40, theme: .plainUnicode).flatMap { $0 }
            XCTAssertTrue(lines.contains { $0.contains(said) }, said)
        }
        let replayLines = helpPages(replay, 120, 40, theme: .plainUnicode).flatMap { $0 }
        XCTAssertFalse(replayLines.contains { $0.contains("keeps running") })
    }

    // MARK: - Read-only (item 15)

    func testAReadOnlyInspectorSaysSoInTheStatusBar() {
        var state = ViewFixtures.realistic()
        _ = reduce(&state, .attached(process: "demo", pid: 4242, readOnly: true))
        XCTAssertTrue(screen(state)[0].hasPrefix(" pipescope ▸ demo (pid 4242)  LIVE · read-only  "), screen(state)[0])
        XCTAssertTrue(screen(state, theme: .plainASCII)[0].contains("LIVE . read-only"))
        _ = press(&state, .character("c"))
        XCTAssertTrue(screen(state)[23].hasPrefix(" read-only: cancelling is refused"), screen(state)[23])
        let writable = ViewFixtures.realistic()
        XCTAssertFalse(screen(writable)[0].contains("read-only"))
    }
}
