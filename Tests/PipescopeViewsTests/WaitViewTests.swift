import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// Where a pipeline waits, on screen: the tree marks the stage holding the wait, the
/// detail pane says it in a sentence, and the table's WAIT column in a few words.
final class WaitViewTests: XCTestCase {
    let t0 = ViewFixtures.t0
    let second = ViewFixtures.second

    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// Sink ← Map(1) ← Future(2), asked for unlimited at t0 + 4 ms and never answered;
    /// Sink ← Timer(3), delivering; on the tree, ticked `after` seconds later.
    func state(after seconds: Int64, page: Page = .tree) -> AppState {
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Map", type: "Map<Future<Int, Never>, Int>", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Future", type: "Future<Int, Never>", subscriber: "Map")
        b.subscription(2)
        b.subscription(1, owner: 2)
        b.request(2, .unlimited)
        b.chain(from: 3, subscriber: "Sink", ops: ["Timer"])
        b.now = t0 + seconds * second - 100_000_000
        b.value(3, "tick")
        var state = AppState(targetName: "demo", pid: 4242)
        _ = reduce(&state, .attached(process: "demo", pid: 4242))
        if page == .tree { _ = reduce(&state, .action(.toggleTable)) }
        _ = reduce(&state, .tick(nanos: t0))
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + seconds * second))
        return state
    }

    func testTheTreeMarksTheStageHoldingTheWaitAndSaysItWhereThereIsRoom() throws {
        var waiting = state(after: 41)
        waiting.tree.selection = 1
        let lines = ViewFixtures.render(waiting, width: 120, height: 40, theme: .plainUnicode).lines()
        let future = try XCTUnwrap(lines.first { $0.contains("Future") && $0.contains("●") })
        // ⚠: the stalled lint is on the same stage (and never-completes, after 30 s).
        XCTAssertTrue(future.contains("Future ⚠ ‖ waits 40s"), future)
        XCTAssertEqual(lines.filter { $0.contains("‖") }.count, 2, "only the holder is marked, and the detail pane")
        XCTAssertFalse(try XCTUnwrap(lines.first { $0.contains("Timer") && $0.contains("●") }).contains("‖"))
        XCTAssertTrue(lines.contains { $0.contains("‖ waits 40s for #2 Future upstream to send a value") },
                      "the detail pane says the Map's wait")

        let ascii = ViewFixtures.render(waiting, width: 120, height: 40, theme: .plainASCII).lines()
        XCTAssertTrue(ascii.contains { $0.contains("Future ! || waits 40s") })

        // A narrow label keeps the mark and drops the words.
        var narrow = waiting
        _ = reduce(&narrow, .resize(width: 60, height: 24, treePageSize: 8, tablePageSize: 19, tableWidth: 58))
        let line = try XCTUnwrap(ViewFixtures.render(narrow, width: 60, height: 24, theme: .plainUnicode).lines()
            .first { $0.contains("Future") && $0.contains("●") })
        XCTAssertTrue(line.contains("Future ⚠ ‖"), line)
        XCTAssertFalse(line.contains("waits"), line)

        let flowing = ViewFixtures.render(state(after: 1), width: 120, height: 40, theme: .plainUnicode).lines()
        XCTAssertFalse(flowing.contains { $0.contains("‖") }, "within the threshold nothing is marked")
    }

    func testTheTablesWaitColumnNamesTheHolder() throws {
        let lines = ViewFixtures.render(state(after: 41, page: .table), width: 80, height: 24, theme: .plainUnicode).lines()
        let map = try XCTUnwrap(lines.first { $0.contains("#1 ") })
        XCTAssertTrue(map.contains("waits ↑ Future 40s"), map)
        let timer = try XCTUnwrap(lines.first { $0.contains("#3 ") })
        XCTAssertFalse(timer.contains("waits"), timer)
    }
}
