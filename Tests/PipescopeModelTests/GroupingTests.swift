import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Ended siblings alike share one row: which rows exist, their totals, opening and
/// closing them, where the selection goes, and what `c`, `v` and `x` do with them.
final class GroupingTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    /// 1 FlatMap → Sink, 2 PassthroughSubject, then `finished` answered Futures (3…) and
    /// `active` waiting ones after them.
    private func flatMap(finished: Int, active: Int = 1) -> AppState {
        var b = BatchBuilder()
        b.flatMapRoot(1)
        var id: NodeID = 3
        for _ in 0..<finished {
            b.innerFuture(id, under: 1, answer: "response \(id)")
            id += 1
        }
        for _ in 0..<active {
            b.innerFuture(id, under: 1)
            id += 1
        }
        return connected(b.build())
    }

    private func connected(_ batches: EventBatch...) -> AppState {
        var state = AppState(targetName: "demo", pid: 4242)
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "demo", pid: 4242))
        for batch in batches { _ = reduce(&state, .batch(batch)) }
        return state
    }

    private func select(_ selection: TreeSelection, in state: inout AppState) {
        _ = reduce(&state, .action(.home))
        for _ in 0..<state.tree.rows.count where state.tree.current != selection {
            _ = reduce(&state, .action(.moveDown))
        }
        XCTAssertEqual(state.tree.current, selection, "could not select \(selection)")
    }

    private var futures: GroupKey {
        GroupKey(parts: ["Future", BatchBuilder.futureType, "finished"], isOwner: false)
    }

    private var futuresGroup: StageGroup.ID { StageGroup.ID(parent: 1, owner: nil, key: futures) }

    // MARK: - Which rows exist

    func testTheFinishedInnersOfAFlatMapAreOneRowWithTheirTotals() throws {
        let state = flatMap(finished: 18)
        let rows = state.tree.rows
        XCTAssertEqual(rows.map(\.id), [1, 2, 20, 21], "FlatMap, its subject, the group (named by its newest), the live Future")
        XCTAssertEqual(rows.map(\.depth), [0, 1, 1, 1])
        XCTAssertEqual(rows.map { $0.group != nil }, [false, false, true, false])
        let group = try XCTUnwrap(rows[2].group)
        XCTAssertEqual(group.id, futuresGroup)
        XCTAssertEqual(group.count, 18)
        XCTAssertEqual(group.members, Array(3...20), "oldest first")
        XCTAssertEqual(group.values, 18, "one answer each")
        XCTAssertEqual(group.requested, .unlimited)
        XCTAssertEqual(group.status, .finished)
        XCTAssertEqual(group.newest, 20)
        XCTAssertTrue(rows[2].isCollapsed && rows[2].hasChildren, "closed, and → opens it")
        XCTAssertEqual(rows[3].selection, .stage(21), "the live inner keeps its own row")
    }

    func testOneEndedSiblingAloneKeepsItsRow() {
        let state = flatMap(finished: 1)
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 3, 4])
        XCTAssertTrue(state.tree.rows.allSatisfy { $0.group == nil })
    }

    func testLiveSiblingsAreNeverGrouped() {
        let state = flatMap(finished: 0, active: 5)
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 3, 4, 5, 6, 7])
        XCTAssertTrue(state.tree.rows.allSatisfy { $0.group == nil })
    }

    func testADifferentStatusOrTypeIsADifferentGroup() {
        var b = BatchBuilder()
        b.flatMapRoot(1)
        for id: NodeID in [3, 4] { b.innerFuture(id, under: 1, answer: "ok") }
        for id: NodeID in [5, 6] {
            b.innerFuture(id, under: 1)
            b.fail(id, "URLError")
        }
        for id: NodeID in [7, 8] { b.innerFuture(id, under: 1, answer: "1", type: "Future<Int, Never>") }
        b.innerFuture(9, under: 1)
        b.cancel(9)
        let state = connected(b.build())
        let rows = state.tree.rows
        XCTAssertEqual(rows.map(\.id), [1, 2, 4, 6, 8, 9])
        XCTAssertEqual(rows.compactMap(\.group).map(\.members), [[3, 4], [5, 6], [7, 8]])
        XCTAssertEqual(rows.compactMap(\.group).map(\.status), [.finished, .failed, .finished])
    }

    func testAStageWithALiveUpstreamIsNotGrouped() {
        // Two cancelled Maps under a Merge, one of them with a Timer still running upstream.
        var b = BatchBuilder()
        b.subscribe(1, op: "Merge", subscriber: "Sink")
        for id: NodeID in [2, 4] {
            b.subscribe(id, parent: 1, op: "Map", subscriber: "Merge")
            b.subscribe(id + 1, parent: id, op: "TimerPublisher", subscriber: "Map")
            b.subscription(id + 1)
            b.subscription(id)
            b.cancel(id)
        }
        b.cancel(3)
        let state = connected(b.build())
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 3, 4, 5], "#4's Timer still runs: neither Map is hidden in a group")
    }

    func testEndedPipelinesAndReleasedScreensAtTheTopGroupToo() throws {
        var b = BatchBuilder()
        b.flatMapRoot(1)
        for id: NodeID in [10, 20, 30] { b.forgottenRequest(id) }
        // Two ProfileScreens opened and closed, a third still open.
        b.ownedPipeline(40, owner: 1, ownerName: "ProfileScreen", name: "profile avatar")
        b.releaseOwner(1, name: "ProfileScreen", pipelines: [40])
        b.ownedPipeline(50, owner: 2, ownerName: "ProfileScreen", name: "profile avatar")
        b.releaseOwner(2, name: "ProfileScreen", pipelines: [50])
        b.ownedPipeline(60, owner: 3, ownerName: "ProfileScreen", name: "profile avatar")
        // A FeedScreen released while its pipeline still runs: an owner leak, on its own row.
        b.ownedPipeline(70, owner: 4, ownerName: "FeedScreen", name: "feed")
        b.add(.ownerReleased, 0) { $0.other = 4; $0.text = "FeedScreen" }
        let state = connected(b.build())
        let rows = state.tree.rows
        XCTAssertEqual(rows.map(\.id), [1, 2, 30, 50, 60, 60, 61, 70, 70, 71])
        let requests = try XCTUnwrap(rows[2].group)
        XCTAssertEqual(requests.members, [10, 20, 30])
        XCTAssertEqual(requests.id.parent, nil)
        XCTAssertEqual(requests.status, .cancelled)
        let screens = try XCTUnwrap(rows[3].group)
        XCTAssertTrue(screens.id.key.isOwner)
        XCTAssertEqual(screens.count, 2, "two closed ProfileScreens")
        XCTAssertEqual(screens.pipelines, 2)
        XCTAssertEqual(screens.owner?.id, 2, "named by the newest")
        XCTAssertEqual(rows[4].ownerHeader?.id, 3, "the open screen keeps its heading")
        XCTAssertNil(rows[4].group)
        XCTAssertEqual(rows[7].ownerHeader?.id, 4, "the leaking screen keeps its heading")
    }

    func testTheSnapshotTextAndGraphRowsStayUngrouped() {
        let state = flatMap(finished: 5)
        XCTAssertEqual(state.cursor.graph.rows(collapsed: []).map(\.id), Array(1...8))
    }

    func testAFilterShowsEveryMatchOnItsOwnRow() {
        var state = flatMap(finished: 4)
        _ = reduce(&state, .action(.startFilter))
        for c in "response 4" { _ = reduce(&state, .action(.filterType(c))) }
        XCTAssertEqual(state.tree.matches, [4])
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 4], "the match is not hidden in a group")
        XCTAssertEqual(state.tree.selection, 4)
        _ = reduce(&state, .action(.dismiss))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 6, 7], "grouped again")
        XCTAssertEqual(state.tree.current, .group(futuresGroup), "the selected stage is in the group again")
    }

    // MARK: - Opening and closing

    func testRightOpensAGroupAndLeftClosesIt() {
        var state = flatMap(finished: 3)
        select(.group(futuresGroup), in: &state)
        _ = reduce(&state, .action(.expand))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 5, 3, 4, 5, 6], "the group's row, then its members")
        XCTAssertEqual(state.tree.rows.map(\.depth), [0, 1, 1, 2, 2, 2, 1])
        XCTAssertFalse(state.tree.rows[2].isCollapsed)
        XCTAssertEqual(state.tree.current, .group(futuresGroup), "opening keeps the selection")
        _ = reduce(&state, .action(.expand))
        XCTAssertEqual(state.tree.current, .stage(3), "→ on an open group goes to its first member")
        _ = reduce(&state, .action(.moveDown))
        _ = reduce(&state, .action(.collapse))
        XCTAssertEqual(state.tree.current, .group(futuresGroup), "← on a member goes to its group's row")
        _ = reduce(&state, .action(.collapse))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 5, 6], "← on an open group closes it")
        _ = reduce(&state, .action(.collapse))
        XCTAssertEqual(state.tree.current, .stage(1), "← on a closed group goes downstream")
    }

    func testAnOpenGroupStaysOpenAsMembersJoin() {
        var state = flatMap(finished: 2, active: 1)
        select(.group(futuresGroup), in: &state)
        _ = reduce(&state, .action(.expand))
        var more = BatchBuilder(start: BatchBuilder.baseNanos + second)
        more.value(5, "response 5")
        more.finish(5)
        _ = reduce(&state, .batch(more.build()))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 5, 3, 4, 5])
        XCTAssertEqual(state.tree.rows[2].group?.count, 3)
    }

    // MARK: - The selection

    func testTheSelectionFollowsAStageIntoTheGroupItJoins() throws {
        var state = flatMap(finished: 3, active: 1)
        select(.stage(6), in: &state)
        var more = BatchBuilder(start: BatchBuilder.baseNanos + second)
        more.value(6, "response 6")
        more.finish(6)
        _ = reduce(&state, .batch(more.build()))
        XCTAssertEqual(state.tree.current, .group(futuresGroup), "the finished stage is in the group: the group is selected")
        XCTAssertNil(state.selectedNode, "no hidden stage is selected")
        XCTAssertEqual(try XCTUnwrap(state.tree.selectedGroup).count, 4)
        let index = try XCTUnwrap(state.tree.currentIndex)
        XCTAssertEqual(state.tree.rows[index].id, 6)
    }

    func testWhenAGroupIsPrunedToOneItsLastMemberIsSelected() {
        // Three answers: two long ago, one recent. Pruning keeps ended stages 60 s.
        var b = BatchBuilder()
        b.flatMapRoot(1)
        b.innerFuture(3, under: 1, answer: "old")
        b.innerFuture(4, under: 1, answer: "old")
        var recent = BatchBuilder(start: BatchBuilder.baseNanos + 100 * second)
        recent.innerFuture(5, under: 1, answer: "new")
        var state = connected(b.build(), recent.build())
        let group = StageGroup.ID(parent: 1, owner: nil, key: futures)
        select(.group(group), in: &state)
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 150 * second))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 5])
        XCTAssertEqual(state.tree.current, .stage(5), "the group's last member")
    }

    func testWhenAGroupIsHiddenTheSelectionGoesDownstream() {
        var state = flatMap(finished: 3)
        select(.group(futuresGroup), in: &state)
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.tree.current, .stage(1), "the FlatMap the members fed")
    }

    // MARK: - Keys that act on one stage

    func testCancellingAGroupIsRefusedAndSaysHowToReachOneStage() throws {
        var state = flatMap(finished: 3)
        select(.group(futuresGroup), in: &state)
        XCTAssertEqual(reduce(&state, .action(.cancelSelected)), [])
        XCTAssertEqual(state.layer, .browsing, "no confirmation for stages that are not on screen")
        let notice = try XCTUnwrap(state.session.notice)
        XCTAssertTrue(notice.isError)
        XCTAssertEqual(notice.text, "Future ×3 is a group of ended stages: nothing to cancel (→ opens it)")
        XCTAssertEqual(reduce(&state, .action(.toggleWatch)), [])
        XCTAssertEqual(state.session.notice?.text, "Future ×3 is a group of ended stages: nothing to watch (→ opens it)")
        XCTAssertTrue(state.session.watched.isEmpty)
    }

    // MARK: - Hiding ended stages

    func testXHidesTheEndedInnersOfALivePipelineAndCountsThem() {
        var state = flatMap(finished: 18)
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 21], "the live FlatMap, its subject and the waiting Future")
        XCTAssertEqual(state.tree.hiddenEnded, 18)
        XCTAssertEqual(state.session.notice?.text,
                       "18 ended stages hidden: whole pipelines and ended inner stages (x shows them)")
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.tree.rows.count, 4)
        XCTAssertEqual(state.tree.hiddenEnded, 0)
    }

    // MARK: - Size

    func testTenThousandFinishedSiblingsAreOneRow() throws {
        let state = flatMap(finished: 10_000, active: 0)
        XCTAssertEqual(state.tree.rows.count, 3)
        let group = try XCTUnwrap(state.tree.rows[2].group)
        XCTAssertEqual(group.count, 10_000)
        XCTAssertEqual(group.values, 10_000)
        XCTAssertEqual(state.tree.groupOf.count, 10_000, "every member finds its group's row")
    }
}
