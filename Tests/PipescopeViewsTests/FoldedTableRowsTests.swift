import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// The pipelines table's folded rows on screen: `×N` in the ID column at 80 columns, `▸`
/// before the name, the members indented under it once `→` opened it.
final class FoldedTableRowsTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// Three pipelines subscribed at Inbox.swift:42 (two values each, the second one's
    /// waiting on its subject's demand), and one at Feed.swift:7.
    private func inbox() -> AppState {
        var b = BatchBuilder(start: ViewFixtures.t0)
        let inbox = BatchBuilder.at("Inbox.swift", 42, "Inbox.open(thread:)")
        for root: NodeID in [1, 3, 5] {
            b.subscribe(root, op: "Filter", type: "Filter<PassthroughSubject<Int, Never>>", subscriber: "Sink",
                        location: inbox)
            b.subscribe(root + 1, parent: root, op: "PassthroughSubject", subscriber: "Filter")
            b.subscription(root + 1)
            b.subscription(root)
            b.request(root, .unlimited)
        }
        b.subscribe(9, op: "Map", type: "Map<Timer.TimerPublisher, Int>", subscriber: "Sink",
                    location: BatchBuilder.at("Feed.swift", 7, "Feed.start()"))
        b.subscribe(10, parent: 9, op: "TimerPublisher", subscriber: "Map")
        b.subscription(10)
        b.subscription(9)
        b.request(9, .unlimited)
        for root: NodeID in [1, 3, 5, 1, 3, 5, 9] { b.value(root) }
        return ViewFixtures.connected([b.build()], page: .table)
    }

    private func lines(_ state: AppState, width: Int = 80, height: Int = 24) -> [String] {
        ViewFixtures.render(state, width: width, height: height, theme: .plainUnicode).lines()
    }

    func testAClosedFoldedRowShowsTheCountAt80Columns() throws {
        let state = inbox()
        let screen = lines(state)
        let header = try XCTUnwrap(screen.firstIndex { $0.contains("PIPELINE") })
        XCTAssertEqual(Array(screen.dropFirst(header).prefix(3)), [
            "│⚠      ID PIPELINE                    STATUS      WAIT                  RATE▼ │",
            "│       ×3 ▸ Inbox.open(thread:) …     ● active                          7.0/s │",
            "│       #9 Feed.start → … → Map → Sink ● active                          2.0/s │",
        ], screen.joined(separator: "\n"))
        XCTAssertTrue(screen[header - 1].hasPrefix("┌ Pipelines: 4 in 2 rows, sorted by RATE ▼"), screen[header - 1])
        // Its rate is its pipelines' together: 7 events each over 3 s (subscribe ×2,
        // subscription ×2, request, 2 values), 21 in all.
        XCTAssertEqual(state.table.rows.first?.rate ?? 0, 7, accuracy: 1e-9)
    }

    func testRightShowsTheMembersIndentedUnderTheirRow() throws {
        var state = inbox()
        state.table.select(.place(try XCTUnwrap(state.table.rows.first { $0.fold != nil }?.place)))
        _ = reduce(&state, .action(.expand))
        let screen = lines(state)
        let header = try XCTUnwrap(screen.firstIndex { $0.contains("PIPELINE") })
        XCTAssertEqual(Array(screen.dropFirst(header).prefix(6)), [
            "│⚠      ID PIPELINE                    STATUS      WAIT                  RATE▼ │",
            "│       ×3 ▾ Inbox.open(thread:) …     ● active                          7.0/s │",
            "│       #1   Inbox.open(thread:) …     ● active                          2.3/s │",
            "│       #3   Inbox.open(thread:) …     ● active                          2.3/s │",
            "│       #5   Inbox.open(thread:) …     ● active                          2.3/s │",
            "│       #9 Feed.start → … → Map → Sink ● active                          2.0/s │",
        ], screen.joined(separator: "\n"))
        // ASCII: x3, and + / - for closed / open.
        let ascii = ViewFixtures.render(state, width: 80, height: 24, theme: .plainASCII).lines()
        XCTAssertTrue(ascii.contains { $0.contains("x3 - Inbox.open(thread:)") }, ascii.joined(separator: "\n"))
    }
}
