import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

/// `pipescope top --prometheus`' screen at 80x24, line by line: the table of programs,
/// the sort mark, the selection, a notice, and what stands in the table's place when
/// there are no rows.
final class FleetViewTests: XCTestCase {
    static let second: Int64 = 1_000_000_000

    static func fleet() -> FleetState {
        var state = FleetState(url: "http://prometheus.internal:9090")
        state.apply(.rows([
            FleetRow(instance: "shop-1.internal:9464", job: "shop", pipelines: 215, waiting: 0, lints: nil, dropped: 12,
                     reach: .probe("tcp://shop-1.internal:9465")),
            FleetRow(instance: "shop-2.internal:9464", job: "shop", pipelines: 12_500, waiting: 2, lints: 4, dropped: 0,
                     reach: .probe("tcp://shop-2.internal:9465")),
            FleetRow(instance: "127.0.0.1:9464", job: "local", pipelines: 3, waiting: 0, lints: 0, dropped: .nan,
                     reach: .localPid(4242)),
            FleetRow(instance: "feed.internal:9464", job: "feed", pipelines: 7, waiting: 1, lints: .infinity, dropped: 0,
                     reach: .unreachable("its probe's address is unknown (feed.internal:9464 is its metrics port); give "
                        + "its scrape target the label pipescope_probe=\"tcp://HOST:PORT\"")),
        ]), now: 100 * second)
        return state
    }

    /// The screen's lines, each without its trailing blanks.
    func lines(_ state: FleetState, width: Int = 80, height: Int = 24, theme: Theme = .plainUnicode,
               now: Int64 = 103 * second) -> [String] {
        render(state, width: width, height: height, theme: theme, now: now).lines()
            .map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    func render(_ state: FleetState, width: Int = 80, height: Int = 24, theme: Theme = .plainUnicode,
                now: Int64 = 103 * second) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: width, height: height)
        FleetView.render(state, theme: theme, now: now, into: &buffer)
        return buffer
    }

    func testTheTableAt80x24() {
        let shown = lines(Self.fleet())
        XCTAssertEqual(Array(shown.prefix(6)), [
            " pipescope ▸ top prometheus.internal:9090  4 programs         sorted by waiting",
            "INSTANCE              PIPELINES  WAITING▼ LINTS  DROPPED ATTACH",
            "shop-2.internal:9464      12.5k        2      4        0 tcp://shop-2.inte…:9465",
            "feed.internal:9464            7        1   +Inf        0 -",
            "127.0.0.1:9464                3        0      0      NaN pid 4242",
            "shop-1.internal:9464        215        0      -       12 tcp://shop-1.inte…:9465",
        ])
        XCTAssertEqual(Array(shown[6..<23]), Array(repeating: "", count: 17))
        XCTAssertEqual(shown[23], " ↑↓ move  Enter attach  < > sort  i invert  r read now  q quit      read 3s ago")
        // The selection (the first row) is reversed across the width; no other row is.
        let buffer = render(Self.fleet())
        XCTAssertTrue((0..<80).allSatisfy { buffer[$0, 2].style.reverse })
        XCTAssertFalse(buffer[0, 3].style.reverse)
    }

    func testSortedByInstanceInASCIIWithANotice() {
        var state = Self.fleet()
        for _ in 0..<2 { _ = state.handle(.sortPrevious) }
        _ = state.handle(.end)
        XCTAssertEqual(state.handle(.enter), .attach(target: "tcp://shop-2.internal:9465", instance: "shop-2.internal:9464"))
        let shown = lines(state, theme: .plainASCII)
        XCTAssertEqual(Array(shown.prefix(6)), [
            " pipescope > top prometheus.internal:9090  4 programs        sorted by instance",
            "INSTANCE^             PIPELINES  WAITING  LINTS  DROPPED ATTACH",
            "127.0.0.1:9464                3        0      0      NaN pid 4242",
            "feed.internal:9464            7        1   +Inf        0 -",
            "shop-1.internal:9464        215        0      -       12 tcp://shop-1.inte~:9465",
            "shop-2.internal:9464      12.5k        2      4        0 tcp://shop-2.inte~:9465",
        ])
        XCTAssertEqual(shown[23], " up/down move  Enter attach  < > sort  i invert  r read now  q quit",
                       "no room for the read's age")
        XCTAssertTrue(render(state, theme: .plainASCII)[0, 5].style.reverse, "the last row is selected")
    }

    func testAnUnreachableRowSaysWhyAboveTheKeys() {
        var state = Self.fleet()
        _ = state.handle(.down)
        XCTAssertNil(state.handle(.enter))
        let shown = lines(state)
        XCTAssertEqual(Array(shown[20...]), [
            " cannot attach to feed.internal:9464: its probe's address is unknown",
            " (feed.internal:9464 is its metrics port); give its scrape target the label",
            " pipescope_probe=\"tcp://HOST:PORT\"",
            " ↑↓ move  Enter attach  < > sort  i invert  r read now  q quit      read 3s ago",
        ])
    }

    func testWhatStandsInTheTablesPlace() {
        let reading = lines(FleetState(url: "http://127.0.0.1:9090"))
        XCTAssertEqual(Array(reading.prefix(3)), [
            " pipescope ▸ top 127.0.0.1:9090                               sorted by waiting",
            "",
            "  reading http://127.0.0.1:9090…",
        ])
        var down = FleetState(url: "http://127.0.0.1:9090")
        down.apply(.failed("cannot reach Prometheus at http://127.0.0.1:9090: connection refused. Is it running, and is "
            + "that its address? (It listens on 9090 unless started with --web.listen-address.)"), now: 100 * Self.second)
        XCTAssertEqual(Array(lines(down).prefix(5)), [
            " pipescope ▸ top 127.0.0.1:9090                               sorted by waiting",
            "",
            "  cannot reach Prometheus at http://127.0.0.1:9090: connection refused. Is it",
            "  running, and is that its address? (It listens on 9090 unless started with",
            "  --web.listen-address.)",
        ])
        var empty = FleetState(url: "http://127.0.0.1:9090")
        empty.apply(.rows([]), now: 100 * Self.second)
        XCTAssertEqual(Array(lines(empty).prefix(6)), [
            " pipescope ▸ top 127.0.0.1:9090                               sorted by waiting",
            "",
            "  Prometheus at http://127.0.0.1:9090 has no pipescope_* series yet. Start",
            "  programs with PIPESCOPE_METRICS_LISTEN=host:port and add them to its scrape",
            "  config (see Fleet in the docs); a new target shows after its first scrape.",
            "",
        ])
    }

    func testEveryActionHasAKeyAndNoKeyTwoActions() {
        XCTAssertEqual(Set(FleetKeyMap.bindings.map(\.action)).count, FleetState.Key.allCases.count)
        let keys = FleetKeyMap.bindings.flatMap(\.keys)
        XCTAssertEqual(Set(keys).count, keys.count)
        XCTAssertEqual(FleetKeyMap.key(for: .character(">")), .sortNext)
        XCTAssertEqual(FleetKeyMap.key(for: .character("i")), .invertSort, "as the pipelines table inverts")
        XCTAssertNil(FleetKeyMap.key(for: .character("x")))
    }
}
