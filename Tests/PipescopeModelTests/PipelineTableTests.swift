import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// The pipelines table: its rows, its sort, and a selection that is a pipeline.
final class PipelineTableTests: XCTestCase {
    let second: Int64 = 1_000_000_000
    let t0 = BatchBuilder.baseNanos

    /// Three linear pipelines, roots 1, 10 and 20, that delivered 3, 30 and 3 values
    /// during the second after `t0`; then a tick two seconds later.
    func threePipelines() -> AppState {
        var state = AppState(targetName: "demo", pid: 1)
        _ = reduce(&state, .attached(process: "demo", pid: 1))
        var b = BatchBuilder(start: t0, step: 1_000_000)
        b.chain(from: 1, subscriber: "Sink", ops: ["Filter", "Map", "PassthroughSubject"])
        b.chain(from: 10, subscriber: "Sink", ops: ["Map", "TimerPublisher"])
        b.chain(from: 20, subscriber: "Assign", ops: ["Map", "Just"])
        for _ in 0..<3 { b.value(1) }
        for _ in 0..<30 { b.value(10) }
        for _ in 0..<3 { b.value(20) }
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 2 * second))
        return state
    }

    func ids(_ state: AppState) -> [NodeID] { state.table.rows.map(\.id) }

    // MARK: - Rows

    func testTheTableIsTheFirstScreenWithOneRowPerPipeline() throws {
        let state = threePipelines()
        XCTAssertEqual(state.page, .table)
        XCTAssertEqual(Set(ids(state)), [1, 10, 20])
        let first = try XCTUnwrap(state.table.rows.first { $0.id == 1 })
        XCTAssertEqual(first.name.text, "PassthroughSubject → Map → Filter → Sink", "code order, then the subscriber")
        XCTAssertEqual(first.stages, 3)
        XCTAssertEqual(first.values, 3)
        XCTAssertEqual(first.status, .active)
        XCTAssertEqual(state.table.rows.first { $0.id == 20 }?.name.text, "Just → Map → Assign")
    }

    func testRatesAreCountedPerPipelineFromTheEventsTimes() throws {
        let state = threePipelines()
        let busy = try XCTUnwrap(state.table.rows.first { $0.id == 10 })
        // Setup events (2 subscribes, 2 subscriptions, 2 requests) and 30 values, all in
        // the second after t0, read two seconds later over a 3-second window.
        XCTAssertEqual(busy.rate, Double(6 + 30) / 3, accuracy: 1e-9)
        let counts = state.table.activity.counts(of: 10, at: t0 + 2 * second)
        XCTAssertEqual(counts.count, 60)
        XCTAssertEqual(counts[58], 36, "the second after t0, one second before now")
        XCTAssertEqual(counts.reduce(0, +), 36)
    }

    func testANamedStageNamesItsPipeline() {
        var state = AppState(targetName: "demo")
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "profile avatar", type: "Map<Timer.TimerPublisher, String>", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Map", type: "Map<Timer.TimerPublisher, String>", subscriber: "profile avatar")
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + second))
        XCTAssertEqual(state.table.rows.first?.name, PipelineName(parts: ["profile avatar"], named: true))
    }

    func testAStageAdoptedUnderAnotherPipelineCountsForIt() {
        var state = AppState(targetName: "demo")
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscribe(2, op: "Just", subscriber: "Map")   // a root until it is adopted
        b.value(2)
        b.add(.adopt, 2) { $0.other = 1 }
        b.value(2)
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 2 * second))
        XCTAssertEqual(ids(state), [1])
        XCTAssertEqual(state.table.rows.first?.stages, 2)
        // The batch is counted once it is folded: every event of stage 2, even those from
        // before its adoption, counts for the pipeline it is in now.
        XCTAssertEqual(state.table.activity.counts(of: 1, at: t0 + 2 * second).reduce(0, +), 5)
        XCTAssertEqual(state.table.activity.counts(of: 2, at: t0 + 2 * second).reduce(0, +), 0)
    }

    // MARK: - Sorting

    func testTheDefaultSortIsRateDescendingWithTiesByID() {
        let state = threePipelines()
        XCTAssertEqual(state.table.sort, .rate)
        XCTAssertTrue(state.table.descending)
        XCTAssertEqual(ids(state), [10, 1, 20], "1 and 20 tie on rate: ascending ids")
    }

    func testAngleBracketsMoveTheSortColumnAndIInverts() {
        var state = threePipelines()
        // 120 columns: every column is shown but LOCATION (no pipeline has one).
        _ = reduce(&state, .resize(width: 120, height: 40, treePageSize: 20, tablePageSize: 35, tableWidth: 118))
        _ = reduce(&state, .action(.sortNext))
        XCTAssertEqual(state.table.sort, .values)
        XCTAssertEqual(ids(state), [10, 1, 20])
        _ = reduce(&state, .action(.invertSort))
        XCTAssertEqual(ids(state), [1, 20, 10], "ties keep ascending ids in both directions")
        _ = reduce(&state, .action(.sortPrevious))
        _ = reduce(&state, .action(.sortPrevious))
        XCTAssertEqual(state.table.sort, .stages)
        XCTAssertEqual(ids(state), [10, 20, 1])
        _ = reduce(&state, .action(.sortPrevious))
        XCTAssertEqual(state.table.sort, .wait)
        XCTAssertEqual(ids(state), [1, 10, 20], "nothing waits yet: ties keep ascending ids")
        _ = reduce(&state, .action(.sortPrevious))
        _ = reduce(&state, .action(.sortPrevious))
        XCTAssertEqual(state.table.sort, .name, "STATUS, then PIPELINE: LOCATION is not shown")
        XCTAssertEqual(ids(state), [20, 1, 10], "Just… < Passthrough… < Timer…")
    }

    func testTheTreeIsLaidOutOnlyWhenItIsShown() {
        var state = threePipelines()
        XCTAssertEqual(state.page, .table)
        XCTAssertTrue(state.tree.rows.isEmpty, "on the table, batches and ticks do not lay out the tree")
        // Pipeline 20 (Just → Map → Assign) finishes; `x` on the table counts what the
        // tree would hide, as it would on the tree.
        var b = BatchBuilder(start: t0 + 3 * second, step: 1_000_000)
        b.finish(21)
        b.finish(20)
        _ = reduce(&state, .batch(b.build(sequence: state.cursor.liveGraph.sequence + 2)))
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.session.notice?.text.hasPrefix("2 ended stages hidden"), true,
                       state.session.notice?.text ?? "no notice")
        // Shown, the tree is up to date at once: every stage of the live pipelines.
        _ = reduce(&state, .action(.toggleTable))
        XCTAssertEqual(state.page, .tree)
        XCTAssertEqual(Set(state.tree.rows.filter(\.isStage).map(\.id)), [1, 2, 3, 10, 11])
    }

    func testTheSortReachesEveryColumnAndShowsIt() {
        var state = threePipelines()
        // 80 columns (78 in the box): LOCATION, AGE, STAGES, LAST, the sparkline and
        // VALUES are left out while WAIT takes their room, but `>` still reaches each
        // column with something in it (no LOCATION here, nothing timed), and the one
        // sorted by is shown.
        _ = reduce(&state, .resize(width: 80, height: 24, treePageSize: 8, tablePageSize: 19, tableWidth: 78))
        XCTAssertFalse(state.table.columns.shows(.values))
        var order: [TableColumn] = []
        for _ in 0..<10 {
            _ = reduce(&state, .action(.sortNext))
            order.append(state.table.sort)
            XCTAssertTrue(state.table.columns.shows(state.table.sort), "sorted by \(state.table.sort), shown")
        }
        XCTAssertEqual(order, [.values, .age, .lastEvent, .warnings, .id, .name, .status, .wait, .stages, .rate])
        _ = reduce(&state, .action(.sortPrevious))
        XCTAssertEqual(state.table.sort, .stages)
        XCTAssertFalse(state.table.columns.shows(.wait), "STAGES takes WAIT's room")
        // Wider, the sort stays where it is, and the columns left out come back.
        _ = reduce(&state, .resize(width: 120, height: 40, treePageSize: 20, tablePageSize: 35, tableWidth: 118))
        XCTAssertEqual(state.table.sort, .stages)
        XCTAssertTrue(state.table.columns.shows(.wait))
        _ = reduce(&state, .action(.sortNext))
        XCTAssertEqual(state.table.sort, .rate)
    }

    func testTheSortIsStable() {
        let rows = (1...50).map { id in
            PipelineRow(id: NodeID(id), name: PipelineName(parts: ["Sink"], named: false), location: "",
                        status: .active, stages: id % 3, rate: Double(id % 2), values: 0, createdNanos: 0,
                        lastEventNanos: 0, warnings: 0)
        }
        for column in TableColumn.allCases {
            for descending in [false, true] {
                let sorted = rows.shuffled().sorted(by: column, descending: descending)
                XCTAssertEqual(sorted, rows.shuffled().sorted(by: column, descending: descending))
                for (a, b) in zip(sorted, sorted.dropFirst())
                where !column.ascending(a, b) && !column.ascending(b, a) {
                    XCTAssertLessThan(a.id, b.id, "\(column) descending \(descending)")
                }
            }
        }
    }

    // MARK: - The selection is a pipeline

    func testTheSelectionIsPinnedToThePipelineFirstShownFirst() {
        var state = AppState(targetName: "demo")
        var b = BatchBuilder(start: t0)
        b.chain(from: 5, subscriber: "Sink", ops: ["Map"])
        _ = reduce(&state, .batch(b.build()))
        XCTAssertNil(state.table.selected, "batches do not rebuild the table: the next tick does")
        _ = reduce(&state, .tick(nanos: t0 + 1000))
        XCTAssertEqual(state.table.selected, 5)
        b = BatchBuilder(start: t0 + 1000)
        b.chain(from: 2, subscriber: "Sink", ops: ["Map"])
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 2000))
        XCTAssertEqual(ids(state), [2, 5], "equal rates: by id")
        XCTAssertEqual(state.table.selected, 5, "not the row at the top: the pipeline")
        state.retention = Retention(seconds: 0, maxEndedPipelines: 0)
        b = BatchBuilder(start: t0 + 2000)
        b.finish(6)
        b.finish(5)
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 2 * second))
        XCTAssertEqual(state.table.selected, 2)
        XCTAssertNil(state.session.notice, "the user had not chosen 5: its leaving is not news")
    }

    func testTheSelectionFollowsItsPipelineWhileRowsResortAndArrive() {
        var state = threePipelines()
        _ = reduce(&state, .action(.home))
        _ = reduce(&state, .action(.moveDown))
        XCTAssertEqual(state.table.selected, 1)
        // 20 gets busy and moves above 1; a new pipeline, busier still, arrives on top.
        var b = BatchBuilder(start: t0 + 2 * second, step: 1_000_000)
        for _ in 0..<100 { b.value(20) }
        b.chain(from: 30, subscriber: "Sink", ops: ["Map"])
        for _ in 0..<300 { b.value(30) }
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 3 * second))
        XCTAssertEqual(ids(state), [30, 20, 10, 1])
        XCTAssertEqual(state.table.selected, 1, "still the same pipeline")
        XCTAssertEqual(state.table.currentIndex, 3)
        XCTAssertNil(state.session.notice)
    }

    func testWhenTheSelectedPipelineIsPrunedTheRowAtItsPlaceIsSelectedAndSaid() throws {
        var state = threePipelines()
        state.retention = Retention(seconds: 0, maxEndedPipelines: 0)
        _ = reduce(&state, .action(.home))
        _ = reduce(&state, .action(.moveDown))
        XCTAssertEqual(state.table.selected, 1)
        var b = BatchBuilder(start: t0 + 2 * second)
        b.finish(3)
        b.finish(2)
        b.finish(1)
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 4 * second))
        XCTAssertEqual(ids(state), [10, 20])
        XCTAssertEqual(state.table.selected, 20, "the row now at the old position")
        let notice = try XCTUnwrap(state.session.notice)
        XCTAssertEqual(notice.text, "#1 PassthroughSubject → Map → Filter → Sink ended and was pruned: "
            + "selected #20 Just → Map → Assign")
    }

    // MARK: - Table and tree

    func testEnterOpensThePipelinesTreeAloneAndEscComesBack() {
        var state = threePipelines()
        _ = reduce(&state, .action(.home))
        _ = reduce(&state, .action(.moveDown))
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertEqual(state.page, .tree)
        XCTAssertEqual(state.tree.scope, 1)
        XCTAssertEqual(state.tree.rows.map(\.id), [1, 2, 3])
        XCTAssertEqual(state.tree.selection, 1, "the pipeline's root")
        _ = reduce(&state, .action(.moveDown))
        _ = reduce(&state, .action(.dismiss))
        XCTAssertEqual(state.page, .table)
        XCTAssertNil(state.tree.scope)
        XCTAssertEqual(state.table.selected, 1)
    }

    /// Ended pipelines alike share one row in the whole tree; opened from the table, a
    /// pipeline is shown alone, its own stages, not the group it would be in there.
    func testAnOpenedPipelineIsNotGroupedWithThePipelinesLikeIt() throws {
        var state = AppState(targetName: "demo", pid: 1)
        _ = reduce(&state, .attached(process: "demo", pid: 1))
        var b = BatchBuilder(start: t0, step: 1_000_000)
        for root: NodeID in [1, 10, 20] {
            b.chain(from: root, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
            b.value(root)
        }
        for root: NodeID in [1, 10, 20] { for id in [root + 1, root] { b.finish(id) } }
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: t0 + 2 * second))
        _ = reduce(&state, .action(.toggleTable))
        XCTAssertEqual(state.tree.rows.count, 1, "the whole tree groups the three")
        XCTAssertEqual(state.tree.rows.first?.group?.members, [1, 10, 20])
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .action(.home))
        while state.table.selected != 10 {
            let before = state.table.selected
            _ = reduce(&state, .action(.moveDown))
            XCTAssertNotEqual(state.table.selected, before, "pipeline 10 has a row")
        }
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertEqual(state.tree.scope, 10)
        XCTAssertEqual(state.tree.rows.map(\.id), [10, 11])
        XCTAssertNil(state.tree.rows.first?.group)
        XCTAssertEqual(state.tree.selection, 10)
    }

    func testTShowsTheWholeTreeAndBackSelectsTheStagesPipeline() {
        var state = threePipelines()
        _ = reduce(&state, .action(.home))
        _ = reduce(&state, .action(.toggleTable))
        XCTAssertEqual(state.page, .tree)
        XCTAssertNil(state.tree.scope)
        XCTAssertEqual(state.tree.selection, 10, "the selected row's root")
        XCTAssertEqual(state.tree.rows.count, 7)
        _ = reduce(&state, .action(.end))
        XCTAssertEqual(state.tree.selection, 21)
        _ = reduce(&state, .action(.toggleTable))
        XCTAssertEqual(state.page, .table)
        XCTAssertEqual(state.table.selected, 20, "the pipeline holding stage 21")
    }

    func testCancelOnARowAsksAboutThePipelinesRoot() {
        var state = threePipelines()
        _ = reduce(&state, .action(.home))
        _ = reduce(&state, .action(.cancelSelected))
        guard case .confirmingCancel(let preview) = state.layer else { return XCTFail("\(state.layer)") }
        XCTAssertEqual(preview.target, 10)
        XCTAssertEqual(preview.upstream, [11])
        XCTAssertEqual(reduce(&state, .action(.confirm)), [.cancelNode(10)])
    }

    func testTheTableShowsTheGraphAtTheHistoryCursor() {
        var state = threePipelines()
        _ = reduce(&state, .action(.historyStart))
        XCTAssertTrue(state.table.rows.isEmpty, "before the first event kept, no pipeline existed")
        _ = reduce(&state, .action(.history(4)))
        XCTAssertEqual(ids(state), [1])
    }

    func testTheHelpScrollsNoFurtherThanItsEnd() {
        var state = threePipelines()
        _ = reduce(&state, .resize(Geometry(width: 80, height: 24, treePage: 10, tablePage: 19, helpPage: 19,
                                            helpLines: 40)))
        _ = reduce(&state, .action(.toggleHelp))
        _ = reduce(&state, .action(.pageDown))
        XCTAssertEqual(state.layer.overlay?.offset, 19)
        _ = reduce(&state, .action(.pageDown))
        XCTAssertEqual(state.layer.overlay?.offset, 21, "40 lines, 19 at a time")
        _ = reduce(&state, .action(.moveUp))
        XCTAssertEqual(state.layer.overlay?.offset, 20)
        XCTAssertTrue(state.layer.isHelp)
    }
}
