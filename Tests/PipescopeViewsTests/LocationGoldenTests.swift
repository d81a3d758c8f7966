// Golden screens of a tree whose stages have source locations (re-record as in
// ScreenViewGoldenTests.swift: PIPESCOPE_RECORD_GOLDEN=1). The other fixtures have no
// locations, so their screens have no LOCATION column.

import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
@testable import PipescopeViews
import TerminalKit
import XCTest

final class LocationGoldenTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    private func at(_ line: Int, _ function: String, file: String = "DemoProgram.swift") -> SourceLocation {
        SourceLocation(file: "/src/Demo/Sources/PipescopeDemo/" + file, line: line, function: function,
                       image: "pipescope", offset: 0x1000)
    }

    /// The demo's shapes, as a debug build reports them: a ticker made at line 52, a
    /// flatMap at 56 whose inner Futures were made by the `send` at line 116, an upload
    /// at 80, and a pipeline from a build without debug information (function only).
    private func state(selection: NodeID) -> AppState {
        var b = BatchBuilder()
        let start = [at(47, "DemoProgram.start()"), at(12, "DemoCommand.run()", file: "DemoCommand.swift")]
        b.subscribe(1, op: "Filter", type: "Filter<Map<Autoconnect<TimerPublisher>, Int>>", subscriber: "Sink",
                    location: at(52, "DemoProgram.start()"), frames: start)
        b.subscribe(2, parent: 1, op: "Map", type: "Map<Autoconnect<TimerPublisher>, Int>", subscriber: "Filter")
        b.subscribe(3, parent: 2, op: "Autoconnect", type: "Autoconnect<TimerPublisher>", subscriber: "Map")
        b.subscribe(4, parent: 3, op: "TimerPublisher", type: "Timer.TimerPublisher", subscriber: "Autoconnect")
        for id: NodeID in [4, 3, 2, 1] { b.subscription(id, owner: id == 4 ? 0 : 4) }
        b.request(4, .unlimited)
        b.value(4, "2026-11-21 12:13:45 +0000")
        b.value(3, "2026-11-21 12:13:45 +0000")
        b.value(2, "42")
        b.value(1, "42")
        b.subscribe(5, op: "FlatMap", type: "FlatMap<Future<String, Never>, PassthroughSubject<Int, Never>>",
                    subscriber: "Sink", location: at(56, "closure #1 in DemoProgram.start()"),
                    frames: [at(55, "DemoProgram.start()")] + start)
        b.subscribe(6, parent: 5, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "FlatMap")
        b.subscription(6)
        b.subscription(5)
        b.request(5, .unlimited)
        b.request(6, .unlimited)
        let tick = [at(62, "closure #2 in DemoProgram.start()")]
        for id: NodeID in [7, 8] {
            b.value(6, "\(id)")
            b.subscribe(id, parent: 5, op: "Future", type: "Future<String, Never>", subscriber: "FlatMap",
                        location: at(116, "DemoProgram.tick()"), frames: tick)
            b.subscription(id)
            b.request(id, .unlimited)
        }
        b.value(7, "response 1")
        b.finish(7)
        b.subscribe(9, op: "Map", type: "Map<Scan<PassthroughSubject<Int, Never>, Int>, String>", subscriber: "Sink",
                    location: at(80, "DemoProgram.startUpload()"), frames: [at(121, "DemoProgram.tick()")])
        b.subscribe(10, parent: 9, op: "Scan", type: "Scan<PassthroughSubject<Int, Never>, Int>", subscriber: "Map")
        b.subscribe(11, parent: 10, op: "PassthroughSubject", type: "PassthroughSubject<Int, Never>", subscriber: "Scan")
        for id: NodeID in [11, 10, 9] { b.subscription(id, owner: id == 11 ? 0 : 11) }
        b.request(11, .unlimited)
        b.subscribe(12, op: "Just", type: "Just<Int>", subscriber: "Sink",
                    location: SourceLocation(function: "LifecycleStories.start()", image: "pipescope", offset: 0x2f10))
        b.subscription(12)
        b.request(12, .unlimited)
        var state = ViewFixtures.connected(b.build())
        state.tree.selection = selection
        return state
    }

    private func check(_ state: AppState, _ name: String, width: Int, height: Int, theme: Theme,
                       file: StaticString = #filePath, line: UInt = #line) {
        let buffer = ViewFixtures.render(state, width: width, height: height, theme: theme)
        let themeName = theme.glyphs.isUnicode ? "unicode" : "ascii"
        Golden.assertMatches(buffer, "\(name)-\(width)x\(height)-\(themeName)", file: file, line: line)
    }

    /// 120x40: the tree pane is 64 columns, so the status shows as its glyph to make room
    /// for LOCATION; the selected inner Future shows where it was made and its caller.
    func testATreeWithLocations() {
        check(state(selection: 7), "locations", width: 120, height: 40, theme: .plainUnicode)
    }

    /// 80x24: the tree is the whole width, so LOCATION fits beside the status words.
    func testATreeWithLocationsOnAnEightyColumnTerminal() {
        check(state(selection: 1), "locations", width: 80, height: 24, theme: .plainUnicode)
    }

    /// A stage from a binary without debug information: its function, its binary, and why
    /// there is no line.
    func testALocationWithoutALine() {
        check(state(selection: 12), "locations-no-line", width: 120, height: 40, theme: .plainASCII)
    }

    /// Narrower, LOCATION shrinks (file names lose their start, never the line); at the
    /// smallest screen it goes, and the rest stays as it was.
    func testLocationShrinksThenGoesFirstWhenNarrow() {
        check(state(selection: 1), "locations", width: 60, height: 24, theme: .plainUnicode)
        check(state(selection: 1), "locations", width: ScreenView.minimumWidth, height: ScreenView.minimumHeight,
              theme: .plainUnicode)
    }

    func testTheColumnsGiveWayInOrder() {
        // 80 columns: everything, the status spelt out.
        XCTAssertEqual(TreeColumns(width: 78, locationWidth: 21), TreeColumns(label: 22, status: 14, location: 21))
        // A wider location there loses the start of its file name first.
        XCTAssertEqual(TreeColumns(width: 78, locationWidth: 25), TreeColumns(label: 22, status: 14, location: 21))
        // 120 columns (a 64-column pane): the status as its glyph.
        XCTAssertEqual(TreeColumns(width: 64, locationWidth: 21), TreeColumns(label: 20, status: 2, location: 21))
        XCTAssertEqual(TreeColumns(width: 64, locationWidth: 25), TreeColumns(label: 20, status: 2, location: 21))
        // Narrower: no location, the status in full.
        XCTAssertEqual(TreeColumns(width: 50, locationWidth: 21), TreeColumns(label: 16, status: 14, location: 0))
        XCTAssertEqual(TreeColumns(width: 64, locationWidth: 0), TreeColumns(label: 30, status: 14, location: 0))
        XCTAssertEqual(TreeColumns(width: 200, locationWidth: 12).location, 12, "no wider than the widest")
        XCTAssertEqual(TreeColumns(width: 200, locationWidth: 60).location, TreeColumns.locationLimit)
        let columns = TreeColumns(label: 20, status: 2, location: 12)
        XCTAssertEqual(columns.fit(SourceLocation(file: "/a/VeryLongFileName.swift", line: 88), ellipsis: "…"),
                       "…me.swift:88")
        XCTAssertEqual(columns.fit(SourceLocation(function: "LifecycleStories.start()"), ellipsis: "~"), "LifecycleSt~")
    }

    /// A warning's heading says where its pipeline was made, once the location has come
    /// (here in a later batch, as the probe sends a location it had to look up).
    func testAWarningSaysWhereItsPipelineWasMade() throws {
        var b = BatchBuilder()
        b.flatMapRoot(1)
        b.forgottenRequest(10)
        var state = AppState(targetName: "demo", pid: 1)
        _ = reduce(&state, .attached(process: "demo", pid: 1))
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 1_000_000_000))
        let before = try XCTUnwrap(state.warnings.groups.first)
        XCTAssertFalse(LintsOverlay.heading(before, graph: state.cursor.graph).contains("("), "no location yet")
        let later = EventBatch(locations: [LocatedStage(node: 10, location: at(105, "DemoProgram.tick()"))],
                               trailer: BatchTrailer(sequence: state.cursor.liveGraph.sequence))
        _ = reduce(&state, .batch(later))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 2_000_000_000))
        let group = try XCTUnwrap(state.warnings.groups.first)
        let heading = LintsOverlay.heading(group, graph: state.cursor.graph)
        XCTAssertTrue(heading.hasPrefix("⚠ unretained-cancellable at #"), heading)
        XCTAssertTrue(heading.hasSuffix("(DemoProgram.swift:105)"), heading)
    }
}
