import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// `e`: what it explains (the log's selected event, else the selected stage's last
/// value), and the overlay's keys.
final class ExplainKeyTests: XCTestCase {
    /// Map (1, root) ← ReceiveOn (2) ← PassthroughSubject (3), and Idle (4) that never
    /// delivered; 23 sent on main (#14), hopped to worker 1 (#15), mapped to 46 (#16).
    private func state(page: Page = .tree) -> AppState {
        var b = BatchBuilder(step: 40_000)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "ReceiveOn", "PassthroughSubject"])
        b.subscribe(4, op: "Idle", subscriber: "Sink")
        b.subscription(4)
        b.request(4, .unlimited)
        b.add(.value, 3) { $0.text = "23"; $0.thread = "main" }
        b.add(.value, 2) { $0.text = "23"; $0.thread = "worker 1"; $0.causedBy = 13 }
        b.add(.value, 1) { $0.text = "46"; $0.thread = "worker 1"; $0.causedBy = 14 }
        var state = AppState(targetName: "demo", pid: 1)
        _ = reduce(&state, .attached(process: "demo", pid: 1))
        _ = reduce(&state, .resize(width: 80, height: 24, treePageSize: 10))
        _ = reduce(&state, .batch(b.build()))
        if page == .tree { _ = reduce(&state, .action(.toggleTable)) }
        return state
    }

    private func explanation(_ state: AppState, file: StaticString = #filePath, line: UInt = #line) -> Explanation? {
        guard case .explaining(let explanation) = state.layer else {
            XCTFail("no explanation open: \(state.layer)", file: file, line: line)
            return nil
        }
        return explanation
    }

    func testEExplainsTheSelectedStagesLastValue() throws {
        var s = state()
        s.tree.selection = 1
        XCTAssertEqual(reduce(&s, .action(.explain)), [])
        let e = try XCTUnwrap(explanation(s))
        XCTAssertEqual(e.title, "Where #1 Map's last value came from")
        XCTAssertEqual(e.chain?.hops.map(\.id), [15, 14, 13])
        XCTAssertEqual(e.chain?.end, .origin)
        XCTAssertNil(e.message)
    }

    func testTheHistoryCursorsEventIsExplained() throws {
        var s = state()
        s.tree.selection = 4
        _ = reduce(&s, .action(.history(-1)))  // the cursor on #14, ReceiveOn's 23
        _ = reduce(&s, .action(.explain))
        let e = try XCTUnwrap(explanation(s))
        XCTAssertEqual(e.title, "Where #2 ReceiveOn's value (event 14) came from")
        XCTAssertEqual(e.chain?.hops.map(\.id), [14, 13])
    }

    /// With the event log focused and live, `e` explains its newest event; a request
    /// there says it records no cause.
    func testTheEventLogsNewestEventIsExplained() throws {
        var s = state()
        s.tree.selection = 4
        _ = reduce(&s, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))  // the log on screen
        while s.focus != .events { _ = reduce(&s, .action(.focusNext)) }
        _ = reduce(&s, .action(.explain))
        XCTAssertEqual(try XCTUnwrap(explanation(s)).chain?.hops.map(\.id), [15, 14, 13])
        _ = reduce(&s, .action(.dismiss))
        _ = reduce(&s, .action(.history(-3)))  // #12: Idle's request
        _ = reduce(&s, .action(.explain))
        let request = try XCTUnwrap(explanation(s))
        XCTAssertEqual(request.chain?.end, .kindHasNoCause)
        XCTAssertEqual(request.lines(width: 70).last, "A request event records no cause")
    }

    /// In one pipeline's tree the log lists that pipeline's events only, and `e` explains
    /// the newest of those, not another pipeline's newest.
    func testInOnePipelinesTreeTheLogsNewestIsThatPipelines() throws {
        var s = state()
        var b = BatchBuilder(step: 40_000)
        b.request(4, .count(1))  // Idle's: now the newest event of all
        _ = reduce(&s, .batch(b.build()))
        s.tree.selection = 1
        _ = reduce(&s, .action(.openPipeline))
        _ = reduce(&s, .resize(Geometry(width: 140, height: 40, treePage: 20, timelineWidth: 50)))  // the log on screen
        while s.focus != .events { _ = reduce(&s, .action(.focusNext)) }
        _ = reduce(&s, .action(.explain))
        let e = try XCTUnwrap(explanation(s))
        XCTAssertEqual(e.chain?.hops.first?.id, 15, "Map's 46")
        XCTAssertNotEqual(e.chain?.end, .kindHasNoCause, "not Idle's request")
    }

    func testAStageWithoutAValueSaysSo() throws {
        var s = state()
        s.tree.selection = 4
        _ = reduce(&s, .action(.explain))
        let e = try XCTUnwrap(explanation(s))
        XCTAssertNil(e.chain)
        XCTAssertEqual(e.message, "#4 Idle has delivered no value yet: nothing to explain.")
    }

    /// On the table, `e` explains what the selected pipeline's sink got last.
    func testOnTheTableTheRootsLastValueIsExplained() throws {
        var s = state(page: .table)
        _ = reduce(&s, .tick(nanos: BatchBuilder.baseNanos + 1_000_000_000))  // the table follows at a tick
        s.table.select(pipeline: 1)
        _ = reduce(&s, .action(.explain))
        XCTAssertEqual(try XCTUnwrap(explanation(s)).chain?.hops.first?.stage, 1)
    }

    /// The overlay keeps the keys: `e` and Esc close, `q` quits, the arrows scroll (to
    /// its last line, no further), and another key is ignored and named.
    func testTheOverlayKeepsTheKeys() throws {
        var s = state()
        s.tree.selection = 1
        _ = reduce(&s, .action(.explain))
        _ = reduce(&s, .action(.cancelSelected))
        XCTAssertEqual(s.layer.overlay?.ignoredKey, .cancelSelected, "c does not reach the tree under the overlay")
        XCTAssertTrue(s.layer.isExplaining)
        _ = reduce(&s, .action(.moveDown))
        XCTAssertEqual(s.layer.overlay?.offset, 0, "five lines fit in 19: nothing to scroll")
        XCTAssertNil(s.layer.overlay?.ignoredKey)
        XCTAssertEqual(reduce(&s, .action(.quit)), [.quit])
        _ = reduce(&s, .action(.explain))
        XCTAssertEqual(s.layer, .browsing)
        _ = reduce(&s, .action(.explain))
        _ = reduce(&s, .action(.dismiss))
        XCTAssertEqual(s.layer, .browsing)
        XCTAssertEqual(s.tree.selection, 1, "closing keeps the stage")
    }

    /// The overlay's text wraps at its width, continuing a hop indented, never cut.
    func testLongLinesWrap() {
        let long = Explanation(title: "t", chain: nil, message: "a message long enough to wrap at twenty columns")
        XCTAssertEqual(long.lines(width: 20), ["a message long", "    enough to wrap", "    at twenty", "    columns"])
    }
}
