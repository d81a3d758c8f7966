import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// Every event log row names whom its event happened to: a stage, a task, an owner, or
/// a stage pruned since; never `#0 ?`.
final class EventLogRowsTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
    }

    /// The log's rows (its header dropped), trailing blanks trimmed.
    private func rows(_ state: AppState, width: Int = 90, height: Int = 12) -> [String] {
        ViewFixtures.logRows(state, width: width, height: height)
    }

    func testAReleasedOwnerIsNamedNotShownAsStageZero() {
        var b = BatchBuilder()
        b.ownedPipeline(1, owner: 7, ownerName: "story: ProfileScreen", name: "profile avatar")
        b.releaseOwner(7, name: "story: ProfileScreen", pipelines: [1])
        XCTAssertEqual(rows(ViewFixtures.connected(b.build())).suffix(4), [
            " 7 12:00:00.006  #1 profile avatar  owned by \"story: ProfileScreen\"",
            " 8 12:00:00.007  #1 profile avatar  cancelled by owner",
            " 9 12:00:00.008  #2 Map  cancelled by downstream",
            "10 12:00:00.009  owner \"story: ProfileScreen\"  released",
        ])
    }

    func testAnOwnerReleasedWithoutItsNameIsNamedFromTheGraphOrItsID() {
        var b = BatchBuilder()
        b.ownedPipeline(1, owner: 7, ownerName: "FeedScreen", name: "feed")
        b.add(.ownerReleased, 0) { $0.other = 7 }
        b.add(.ownerReleased, 0) { $0.other = 9 }  // an owner this inspector never saw hold anything
        XCTAssertEqual(rows(ViewFixtures.connected(b.build())).suffix(2), [
            "8 12:00:00.007  owner \"FeedScreen\"  released",
            "9 12:00:00.008  owner #9  released",
        ])
    }

    func testATasksEventsNameItAsATask() {
        var b = BatchBuilder()
        b.watchedTask(1, name: "feed refresh (not tied)", owner: 3, ownerName: "story: FeedScreen")
        b.releaseOwner(3, name: "story: FeedScreen", pipelines: [])
        b.cancel(1)
        XCTAssertEqual(rows(ViewFixtures.connected(b.build())), [
            "1 12:00:00.000  #1 task \"feed refresh (not tied)\"  subscribe",
            "2 12:00:00.001  #1 task \"feed refresh (not tied)\"  subscription",
            "3 12:00:00.002  #1 task \"feed refresh (not tied)\"  owned by \"story: FeedScreen\"",
            "4 12:00:00.003  owner \"story: FeedScreen\"  released",
            "5 12:00:00.004  #1 task \"feed refresh (not tied)\"  cancelled by downstream",
        ])
    }

    func testAPrunedStageIsNamedFromTheHistoryAndSaysItWasPruned() {
        var b = BatchBuilder()
        b.subscribe(12, op: "Just", type: "Just<Int>", subscriber: "Sink")
        b.subscription(12)
        b.request(12, .unlimited)
        b.value(12, "1")
        b.finish(12)
        b.value(40, "late")  // a stage this inspector never saw subscribe (pruned before it attached)
        var state = ViewFixtures.connected(b.build())
        XCTAssertEqual(rows(state).first, "1 12:00:00.000  #12 Just  subscribe")
        // Two minutes later the ended Just has been pruned from the graph.
        _ = reduce(&state, .tick(nanos: ViewFixtures.t0 + 120 * ViewFixtures.second))
        XCTAssertNil(state.cursor.graph[12])
        XCTAssertEqual(rows(state), [
            "1 12:00:00.000  #12 Just (pruned)  subscribe",
            "2 12:00:00.001  #12 Just (pruned)  subscription",
            "3 12:00:00.002  #12 Just (pruned)  request ∞",
            "4 12:00:00.003  #12 Just (pruned)  value 1",
            "5 12:00:00.004  #12 Just (pruned)  finished",
            "6 12:00:00.005  #40 (pruned)  value late",
        ])
    }

    func testTheHistoryLineNamesTheOwnerToo() {
        var b = BatchBuilder()
        b.ownedPipeline(1, owner: 7, ownerName: "ProfileScreen", name: "profile avatar")
        b.releaseOwner(7, name: "ProfileScreen", pipelines: [1])
        b.value(1, "late")
        var state = ViewFixtures.connected(b.build())
        _ = reduce(&state, .action(.history(-1)))  // back onto the owner's release
        var buffer = ScreenBuffer(width: 140, height: 1)
        HintBar.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: 140, height: 1), into: &buffer)
        let line = buffer.lines()[0]
        XCTAssertTrue(line.hasPrefix(" history · event 10: owner \"ProfileScreen\" released, 12:00:00.009"), line)
    }

    /// One number per event: the history line says the number `e` says, the probe's,
    /// not the event's place in the history (they differ whenever the history does not
    /// start at the program's first event: an attach after it started).
    func testTheHistoryLineAndExplainGiveTheEventTheSameNumber() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.value(1, "7")
        b.value(1, "8")
        var state = ViewFixtures.connected(b.build(sequence: 5_000))
        _ = reduce(&state, .action(.history(-1)))
        var buffer = ScreenBuffer(width: 140, height: 1)
        HintBar.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: 140, height: 1), into: &buffer)
        let line = buffer.lines()[0]
        XCTAssertTrue(line.hasPrefix(" history · event 4999: value at #1 Map"), line)
        XCTAssertEqual(Explanation.of(state).title, "Where #1 Map's value (event 4999) came from")
        // The log starts each row with that number and ends at the cursor's row, marked.
        let log = rows(state)
        XCTAssertEqual(log.suffix(2), ["4998 12:00:00.005  #2 PassthroughSubject  request ∞",
                                       "4999 12:00:00.006  #1 Map  value 7"])
        var marked = ScreenBuffer(width: 90, height: 12)
        EventLogView.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: 90, height: 12), into: &marked)
        let cursorRow = marked.lines().firstIndex { $0.hasPrefix("4999 ") }
        XCTAssertEqual(cursorRow.map { marked[0, $0].style.reverse }, true, "the cursor's event is marked")
        XCTAssertEqual(cursorRow.map { marked[0, $0 - 1].style.reverse }, false)
    }

    /// A delivery's time names the subscriber that took it: the stage downstream, or the
    /// pipeline's own subscriber for its root ("its subscriber" said which to nobody).
    func testADeliveryNamesItsSubscriber() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        b.add(.delivered, 2) { $0.totalNanos = 48_000_000; $0.selfNanos = 1_000 }
        b.add(.delivered, 1) { $0.totalNanos = 47_000_000; $0.selfNanos = 47_000_000 }
        let log = rows(ViewFixtures.connected(b.build()), width: 120)
        XCTAssertTrue(log[log.count - 2].hasSuffix("#2 PassthroughSubject  #1 Map took 48 ms (1.0 µs in its own code)"),
                      log[log.count - 2])
        XCTAssertTrue(log[log.count - 1].hasSuffix("#1 Map  Sink took 47 ms (47 ms in its own code)"), log[log.count - 1])
    }

    func testNoRowOfTheDemoShapesIsStageZeroOrUnknown() {
        let lines = rows(ViewFixtures.grouped(), width: 120, height: 400)
        XCTAssertFalse(lines.isEmpty)
        XCTAssertEqual(lines.filter { $0.contains("#0 ") || $0.contains(" ? ") }, [])
    }
}
