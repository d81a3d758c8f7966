// Golden screens of the pipelines table (the first screen) and of the tree opened on one
// pipeline. Re-record as ScreenViewGoldenTests says.

import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

final class TableGoldenTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    private func check(_ state: AppState, _ name: String, width: Int, height: Int, theme: Theme,
                       file: StaticString = #filePath, line: UInt = #line) {
        Golden.check(state, name, width: width, height: height, theme: theme, resized: true, file: file, line: line)
    }

    /// The demo's schedule after two minutes, on the table.
    private func demo() -> AppState { DemoAfterTwoMinutesTests.demo(page: .table) }

    private func sorted(_ state: AppState, _ actions: Action...) -> AppState {
        var state = state
        for action in actions { _ = reduce(&state, .action(action)) }
        return state
    }

    func testTheTableSortedByRate() {
        check(demo(), "table-by-rate", width: 120, height: 40, theme: .plainUnicode)
        check(demo(), "table-by-rate", width: 80, height: 24, theme: .plainUnicode)
        check(demo(), "table-by-rate", width: 80, height: 24, theme: .plainASCII)
    }

    func testTheTableSortedByNameAscending() {
        // From RATE, < four times (STAGES, WAIT, STATUS, PIPELINE: the fixture's pipelines
        // have no location, so there is no LOCATION column for < to stop at), then i.
        let state = sorted(demo(), .sortPrevious, .sortPrevious, .sortPrevious, .sortPrevious, .invertSort)
        XCTAssertEqual(state.table.sort, .name)
        check(state, "table-by-name", width: 120, height: 40, theme: .plainUnicode)
        check(state, "table-by-name", width: 80, height: 24, theme: .plainUnicode)
    }

    func testTheTableSortedByWaitLongestFirst() {
        // From RATE, < twice (STAGES, WAIT); descending: the longest wait first.
        let state = sorted(demo(), .sortPrevious, .sortPrevious)
        XCTAssertEqual(state.table.sort, .wait)
        XCTAssertTrue(state.table.descending)
        XCTAssertEqual(state.table.rows.prefix(2).map(\.id), [15, 17], "the two waiting pipelines, the longer first")
        check(state, "table-by-wait", width: 120, height: 40, theme: .plainUnicode)
    }

    func testTheTableSortedByValues() {
        let state = sorted(demo(), .sortNext)
        XCTAssertEqual(state.table.sort, .values)
        check(state, "table-by-values", width: 120, height: 40, theme: .plainASCII)
    }

    func testTheRealisticPipelinesAsATable() {
        check(ViewFixtures.connected([BatchFixtures.realisticBatch()], page: .table), "table-realistic",
              width: 80, height: 24, theme: .plainUnicode)
    }

    func testEnterOpensTheTreeOfOnePipeline() {
        var state = demo()
        _ = reduce(&state, .action(.home))
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertNotNil(state.tree.scope)
        check(state, "scoped-tree", width: 120, height: 40, theme: .plainUnicode)
        check(state, "scoped-tree", width: 80, height: 24, theme: .plainUnicode)
    }

    /// A location too wide for its column keeps its line: the file name loses its start.
    func testALocationCutToItsColumnKeepsItsLine() {
        XCTAssertEqual(TableView.fit("LifecycleStories.swift:31", width: 20, theme: .plainUnicode), "…cleStories.swift:31")
        XCTAssertEqual(TableView.fit("LifecycleStories.swift:31", width: 20, theme: .plainASCII), "~cleStories.swift:31")
        XCTAssertEqual(TableView.fit("Feed.swift:88", width: 20, theme: .plainUnicode), "Feed.swift:88")
        XCTAssertEqual(TableView.fit("Feed.start() (FeedApp)", width: 10, theme: .plainUnicode), "Feed.start() (FeedApp)",
                       "no line: the cell cuts its end")
    }
}
