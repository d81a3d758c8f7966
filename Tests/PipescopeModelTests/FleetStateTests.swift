import PipescopeModel
import XCTest

/// `pipescope top --prometheus`' state: sorting as the pipelines table does (`<` `>`, `i`),
/// the selection kept across reads, Enter's attach or its reason, and the problems.
final class FleetStateTests: XCTestCase {
    let rows = [
        FleetRow(instance: "a:1", pipelines: 12, waiting: 0, lints: 3, dropped: 0, reach: .probe("tcp://a:2")),
        FleetRow(instance: "b:1", pipelines: 40, waiting: 2, lints: nil, dropped: 5, reach: .localPid(4242)),
        FleetRow(instance: "c:1", pipelines: 3, waiting: 1, lints: 0, dropped: .nan,
                 reach: .unreachable("its probe's address is unknown")),
    ]

    func testWaitingMostFirstAtFirstThenEachColumnByItsKeys() {
        var state = FleetState(url: "http://p:9090")
        state.apply(.rows(rows), now: 0)
        XCTAssertEqual(state.rows.map(\.instance), ["b:1", "c:1", "a:1"])
        XCTAssertEqual(state.sort, .waiting)
        XCTAssertEqual(state.handle(.sortNext), nil)
        XCTAssertEqual(state.sort, .lints)
        XCTAssertEqual(state.rows.map(\.instance), ["a:1", "c:1", "b:1"], "nothing (b's lints) sorts last")
        _ = state.handle(.invertSort)
        XCTAssertEqual(state.rows.map(\.instance), ["c:1", "a:1", "b:1"], "inverted, nothing still last")
        _ = state.handle(.sortNext)
        XCTAssertEqual(state.sort, .dropped)
        XCTAssertEqual(state.rows.map(\.instance), ["b:1", "a:1", "c:1"], "NaN sorts as nothing")
        _ = state.handle(.sortPrevious)
        _ = state.handle(.sortPrevious)
        _ = state.handle(.sortPrevious)
        _ = state.handle(.sortPrevious)
        XCTAssertEqual(state.sort, .instance)
        XCTAssertEqual(state.rows.map(\.instance), ["a:1", "b:1", "c:1"], "text first to last")
        _ = state.handle(.sortPrevious)
        XCTAssertEqual(state.sort, .attach, "wraps")
    }

    func testSelectionFollowsItsInstanceAcrossReads() {
        var state = FleetState(url: "http://p:9090")
        state.apply(.rows(rows), now: 0)
        _ = state.handle(.down)
        XCTAssertEqual(state.selected, "c:1")
        var changed = rows
        changed[2].waiting = 9
        state.apply(.rows(changed), now: 1)
        XCTAssertEqual(state.rows.first?.instance, "c:1")
        XCTAssertEqual(state.selected, "c:1")
        state.apply(.rows(Array(rows.prefix(2))), now: 2)
        XCTAssertEqual(state.selected, "b:1", "its row gone: the first")
    }

    func testEnterAttachesToAReachableRowAndSaysWhyNotOtherwise() {
        var state = FleetState(url: "http://p:9090")
        state.apply(.rows(rows), now: 0)
        XCTAssertEqual(state.handle(.enter), .attach(target: "4242", instance: "b:1"))
        _ = state.handle(.down)
        XCTAssertNil(state.handle(.enter))
        XCTAssertEqual(state.notice, "cannot attach to c:1: its probe's address is unknown")
        _ = state.handle(.down)
        XCTAssertNil(state.notice, "moving clears it")
        XCTAssertEqual(state.handle(.enter), .attach(target: "tcp://a:2", instance: "a:1"))
        XCTAssertEqual(state.handle(.quit), .quit)
    }

    func testAFailedReadAndAnEmptyOneSayWhy() {
        var state = FleetState(url: "http://p:9090")
        state.apply(.rows(rows), now: 0)
        state.apply(.failed("cannot reach Prometheus at http://p:9090: connection refused."), now: 1)
        XCTAssertEqual(state.rows, [])
        XCTAssertEqual(state.problem, "cannot reach Prometheus at http://p:9090: connection refused.")
        XCTAssertNil(state.handle(.enter))
        XCTAssertEqual(state.notice, "no program to attach to")
        state.apply(.rows([]), now: 2)
        XCTAssertEqual(state.problem, "Prometheus at http://p:9090 has no pipescope_* series yet. Start programs with "
            + "PIPESCOPE_METRICS_LISTEN=host:port and add them to its scrape config (see Fleet in the docs); "
            + "a new target shows after its first scrape.")
    }

    func testPagingKeepsTheSelectionShown() {
        var state = FleetState(url: "http://p:9090")
        state.pageRows = 2
        state.apply(.rows((0..<10).map { FleetRow(instance: "h\($0):1", pipelines: Double($0)) }), now: 0)
        _ = state.handle(.sortPrevious)
        _ = state.handle(.sortPrevious)
        XCTAssertEqual(state.sort, .instance)
        _ = state.handle(.end)
        XCTAssertEqual(state.selected, "h9:1")
        XCTAssertEqual(state.offset, 8)
        _ = state.handle(.pageUp)
        XCTAssertEqual(state.selected, "h7:1")
        XCTAssertEqual(state.offset, 7)
        _ = state.handle(.home)
        XCTAssertEqual(state.offset, 0)
    }
}
