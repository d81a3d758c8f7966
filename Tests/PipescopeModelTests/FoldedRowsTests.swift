import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// Screens that each keep every subscription they make (the pile-up: one line makes many
/// pipelines alike), and a log of the same events made elsewhere.
final class KeepingScreens {
    let events = PassthroughSubject<Int, Never>()
    var kept: [AnyCancellable] = []
    var log: AnyCancellable?
    /// The line of `open`'s `sink`: where its pipelines are made.
    static let openLine = #line + 3

    func open(screen: Int) {
        events.filter { $0 == screen }.sink { _ in }.store(in: &kept)
    }

    func startLog() {
        log = events.map { $0 * 2 }.sink { _ in }
    }
}

/// The pipelines table folds the pipelines from one place into one row (`×N`), on real
/// OpenCombine pipelines seen by a probe and folded into the inspector's state as an
/// attached inspector folds them.
final class FoldedRowsTests: RecordedProbeTestCase {
    private var state = AppState(targetName: "screens", pid: 1)
    private var now: Int64 = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        state = AppState(targetName: "screens", pid: 1)
        _ = reduce(&state, .attached(process: "screens", pid: 1))
        _ = reduce(&state, .snapshot(probe.snapshot()))
    }

    /// Brings the inspector up to what the probe saw, once every pipeline has its
    /// location (the probe's symbol thread names them a moment after they are made), then
    /// ticks a second after the newest event.
    private func catchUp() {
        let deadline = Date() + 30
        repeat {
            _ = reduce(&state, .batch(recorder.flush()))
        } while state.cursor.liveGraph.roots.contains(where: { state.cursor.liveGraph[$0]?.location == nil })
            && Date() < deadline
        let graph = state.cursor.liveGraph
        now = max(now, graph.nodes.values.map { max($0.createdNanos, $0.lastValueNanos ?? 0, $0.endedNanos ?? 0) }.max() ?? 0)
            + 1_000_000_000
        _ = reduce(&state, .tick(nanos: now))
    }

    /// The roots made at `KeepingScreens.open`, oldest first.
    private var screenRoots: [NodeID] {
        let graph = state.cursor.liveGraph
        return graph.roots.filter { graph[$0]?.location?.line == KeepingScreens.openLine }.sorted()
    }

    private var logRoot: NodeID? {
        let graph = state.cursor.liveGraph
        return graph.roots.first { graph[$0]?.location?.line != KeepingScreens.openLine }
    }

    private func sort(by column: TableColumn, descending: Bool) {
        state.table.sort = column
        state.table.descending = descending
        _ = reduce(&state, .tick(nanos: now))
    }

    func testPipelinesFromOneLineAreOneRowWithTheirTotals() throws {
        let screens = KeepingScreens()
        screens.startLog()
        for screen in 0..<5 { screens.open(screen: screen) }
        // Screen 0 gets one value, screen 1 two; the log gets all four.
        for value in [0, 1, 1, 7] { screens.events.send(value) }
        catchUp()
        let members = screenRoots
        XCTAssertEqual(members.count, 5)
        let log = try XCTUnwrap(logRoot)

        let rows = Array(state.table.rows)
        XCTAssertEqual(rows.count, 2, "the five screens' pipelines are one row, the log its own")
        let folded = try XCTUnwrap(rows.first { $0.fold != nil })
        XCTAssertEqual(folded.fold, PlaceFold(count: 5, members: members))
        XCTAssertEqual(folded.id, members[0], "the oldest live one: the pipeline pile-up's lint would be on")
        XCTAssertEqual(PlaceTally(state.cursor.liveGraph).holder(at: try XCTUnwrap(state.cursor.liveGraph[members[0]]?.location)),
                       folded.id, "the lint's place and the fold's agree on it")
        XCTAssertEqual(folded.name.text, "KeepingScreens.open(screen:) → PassthroughSubject → Filter → Sink")
        XCTAssertEqual(folded.location, "FoldedRowsTests.swift:\(KeepingScreens.openLine)")
        XCTAssertEqual(TableColumn.id.text(folded, now), "×5")
        XCTAssertEqual(folded.values, 3, "summed: 1 + 2 + 0 + 0 + 0")
        XCTAssertEqual(folded.stages, 10, "summed: Filter and PassthroughSubject, five times")
        XCTAssertEqual(folded.status, .active)
        let built = state.table.rows.built.filter { $0.isMember }
        XCTAssertEqual(built.map(\.id), members, "the members are kept, not shown")
        XCTAssertEqual(folded.rate, built.map(\.rate).reduce(0, +), accuracy: 1e-9)
        XCTAssertEqual(folded.createdNanos, built.map(\.createdNanos).min())
        XCTAssertEqual(folded.lastEventNanos, built.map(\.lastEventNanos).max())
        let single = try XCTUnwrap(rows.first { $0.fold == nil })
        XCTAssertEqual(single.id, log)
        XCTAssertEqual(single.values, 4)
        XCTAssertEqual(TableColumn.id.text(single, now), "#\(log)")

        // Sorted by their totals among the others, ties by id.
        sort(by: .values, descending: true)
        XCTAssertEqual(state.table.rows.map(\.rowID), [.pipeline(log), folded.rowID], "4 values, then 3")
        sort(by: .values, descending: false)
        XCTAssertEqual(state.table.rows.map(\.rowID), [folded.rowID, .pipeline(log)])
        sort(by: .stages, descending: true)
        XCTAssertEqual(state.table.rows.map(\.rowID), [folded.rowID, .pipeline(log)], "10 stages, then 2")
        sort(by: .id, descending: false)
        XCTAssertEqual(state.table.rows.map(\.rowID), [.pipeline(log), folded.rowID], "the log was made first")
        withExtendedLifetime(screens) {}
    }

    func testRightOpensAFoldedRowAndLeftClosesItFromAMember() throws {
        let screens = KeepingScreens()
        screens.startLog()
        for screen in 0..<3 { screens.open(screen: screen) }
        catchUp()
        let members = screenRoots
        let log = try XCTUnwrap(logRoot)
        sort(by: .id, descending: false)
        let place = try XCTUnwrap(state.table.rows.first { $0.fold != nil }?.rowID)
        state.table.select(place)

        // c on the closed row cancels nothing, and says how to cancel one.
        _ = reduce(&state, .action(.cancelSelected))
        XCTAssertEqual(state.layer, .browsing)
        XCTAssertEqual(state.session.notice?.text,
                       "this row is 3 pipelines: → lists them, then c cancels one (nothing cancelled)")

        _ = reduce(&state, .action(.expand))
        XCTAssertEqual(state.table.rows.map(\.rowID), [.pipeline(log), place] + members.map { .pipeline($0) },
                       "its members follow it, in the table's order")
        XCTAssertEqual(state.table.rows.map(\.isMember), [false, false, true, true, true])
        XCTAssertEqual(state.table.selection, place, "opening keeps the selection on the folded row")
        _ = reduce(&state, .action(.expand))
        XCTAssertEqual(state.table.selection, .pipeline(members[0]), "→ on an open row: to its first member")
        _ = reduce(&state, .action(.moveDown))
        XCTAssertEqual(state.table.selected, members[1])
        // A member is a row like any other: c asks to cancel that pipeline.
        _ = reduce(&state, .action(.cancelSelected))
        guard case .confirmingCancel(let preview) = state.layer else { return XCTFail("\(state.layer)") }
        XCTAssertEqual(preview.target, members[1])
        _ = reduce(&state, .action(.dismiss))

        _ = reduce(&state, .action(.collapse))
        XCTAssertEqual(state.table.rows.map(\.rowID), [.pipeline(log), place])
        XCTAssertEqual(state.table.selection, place, "← on a member closes its row and selects it")

        // Enter opens the tree of the oldest live member, and Esc comes back to the row.
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertEqual(state.page, .tree)
        XCTAssertEqual(state.tree.scope, members[0])
        XCTAssertEqual(state.session.notice?.text,
                       "#\(members[0]): the oldest live of the row's 3 pipelines (→ on the table lists them)")
        _ = reduce(&state, .action(.dismiss))
        _ = reduce(&state, .action(.dismiss))
        XCTAssertEqual(state.page, .table)
        XCTAssertEqual(state.table.selection, place, "back on the folded row its pipeline is in")
        withExtendedLifetime(screens) {}
    }

    func testTheSelectionStaysOnTheFoldedRowWhileMembersComeAndGo() throws {
        let screens = KeepingScreens()
        screens.startLog()
        screens.open(screen: 0)
        catchUp()
        let first = try XCTUnwrap(screenRoots.first)
        XCTAssertNil(state.table.rows.first { $0.id == first }?.fold, "one pipeline from a place is not folded")
        state.table.select(pipeline: first)
        XCTAssertEqual(state.table.selection, .pipeline(first))

        // A second from its place: the selected pipeline is in their folded row now.
        screens.open(screen: 1)
        catchUp()
        let place = try XCTUnwrap(state.table.rows.first { $0.fold != nil }?.rowID)
        XCTAssertEqual(state.table.selection, place)
        XCTAssertNil(state.session.notice, "nothing left")

        // More arrive: the same row, selected, counting them.
        for screen in 2..<6 { screens.open(screen: screen) }
        catchUp()
        XCTAssertEqual(state.table.selection, place)
        XCTAssertEqual(state.table.selectedRow?.fold?.count, 6)
        XCTAssertEqual(state.table.selected, first)

        // Five of them end: shown, they still fold, the live one's status the row's.
        for kept in screens.kept.suffix(5) { kept.cancel() }
        catchUp()
        XCTAssertEqual(state.table.selection, place)
        XCTAssertEqual(state.table.selectedRow?.fold?.count, 6)
        XCTAssertEqual(state.table.selectedRow?.status, .active, "the worst of active and cancelled")
        XCTAssertEqual(state.table.selected, first, "the oldest live one")

        // Ended ones hidden (x), one is left: the row comes apart into that pipeline's row.
        _ = reduce(&state, .action(.toggleEnded))
        _ = reduce(&state, .tick(nanos: now))
        XCTAssertEqual(state.table.selection, .pipeline(first))
        XCTAssertEqual(state.table.rows.count, 2)
        XCTAssertTrue(state.table.rows.allSatisfy { $0.fold == nil && !$0.isMember })
        withExtendedLifetime(screens) {}
    }

    func testFTurnsFoldingOffAndOn() throws {
        let screens = KeepingScreens()
        for screen in 0..<3 { screens.open(screen: screen) }
        catchUp()
        let members = screenRoots
        let place = try XCTUnwrap(state.table.rows.first?.rowID)
        XCTAssertEqual(state.table.rows.map(\.rowID), [place])
        state.table.select(place)
        _ = reduce(&state, .action(.toggleFolding))
        XCTAssertEqual(Set(state.table.rows.map(\.id)), Set(members), "each on its own row")
        XCTAssertTrue(state.table.rows.allSatisfy { $0.fold == nil && !$0.isMember })
        XCTAssertEqual(state.table.selection, .pipeline(members[0]), "the folded row's first pipeline")
        XCTAssertEqual(state.session.notice?.text, "each pipeline on its own row: F folds those from one place (×N)")
        _ = reduce(&state, .action(.toggleFolding))
        XCTAssertEqual(state.table.rows.map(\.rowID), [place])
        XCTAssertEqual(state.table.selection, place, "back in the row it folds into")
        withExtendedLifetime(screens) {}
    }

    func testASelectedFoldedRowWhosePipelinesArePrunedSaysSo() throws {
        let screens = KeepingScreens()
        screens.startLog()
        for screen in 0..<3 { screens.open(screen: screen) }
        catchUp()
        let log = try XCTUnwrap(logRoot)
        let place = try XCTUnwrap(state.table.rows.first { $0.fold != nil }?.rowID)
        state.table.select(place)
        for kept in screens.kept { kept.cancel() }
        state.retention = Retention(seconds: 0, maxEndedPipelines: 0)
        catchUp()
        _ = reduce(&state, .tick(nanos: now + 2_000_000_000))
        XCTAssertEqual(state.table.rows.map(\.rowID), [.pipeline(log)])
        XCTAssertEqual(state.table.selection, .pipeline(log))
        XCTAssertEqual(state.session.notice?.text,
                       "×3 KeepingScreens.open(screen:) → PassthroughSubject → Filter → Sink ended and were pruned: "
                       + "selected #\(log) KeepingScreens.startLog → PassthroughSubject → Map → Sink")
        withExtendedLifetime(screens) {}
    }

    /// `snapshot --json`'s pipelines stay one entry per pipeline: folding is the table's.
    func testTheSnapshotRowsAreNotFolded() {
        let screens = KeepingScreens()
        for screen in 0..<4 { screens.open(screen: screen) }
        catchUp()
        let rows = AppState.Table.rows(of: state.cursor.liveGraph, lints: [])
        XCTAssertEqual(rows.map(\.id).sorted(), screenRoots)
        XCTAssertTrue(rows.allSatisfy { $0.fold == nil && !$0.isMember })
        withExtendedLifetime(screens) {}
    }
}
