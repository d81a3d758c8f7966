import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// What a newcomer trips on (issue #24), in the model: a message gives way to the next
/// key, a read-only inspector says so for every key that would act, stepping a recording
/// counts as stepping a program does, PIPELINE sorts by what it shows, and one
/// pipeline's tree lists only its events.
final class KeysSayWhatTheyDidTests: XCTestCase {
    private func live() -> AppState { ModelFixtures.realistic() }

    // MARK: - A message gives way to the next key (item 9)

    func testAMessageGivesWayToTheHistoryKeys() {
        for key in [Action.history(-1), .historyStart, .history(-50)] {
            var state = live()
            _ = reduce(&state, .acknowledged(command: 1, ok: true, text: "cancelled #1; upstream stages follow"))
            XCTAssertNotNil(state.session.notice)
            _ = reduce(&state, .action(key))
            XCTAssertNil(state.session.notice, "\(key): the history line shows, not the old message")
            XCTAssertNotNil(state.cursor.position, "\(key) went back in history")
        }
    }

    func testAKeyThatSaysSomethingReplacesTheMessage() {
        var state = live()
        _ = reduce(&state, .acknowledged(command: 1, ok: true, text: "cancelled #1"))
        _ = reduce(&state, .action(.toggleEnded))
        XCTAssertEqual(state.session.notice?.text.contains("ended stages hidden"), true,
                       "\(String(describing: state.session.notice))")
    }

    /// Esc on a message clears it and does nothing else; the next Esc acts.
    func testEscClearsAMessageFirst() {
        var state = live()
        state.tree.selection = 4
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertEqual(state.tree.scope, 4)
        _ = reduce(&state, .acknowledged(command: 1, ok: false, text: "#4 has already ended"))
        _ = reduce(&state, .action(.dismiss))
        XCTAssertNil(state.session.notice)
        XCTAssertEqual(state.page, .tree, "the first Esc only cleared the message")
        _ = reduce(&state, .action(.dismiss))
        XCTAssertEqual(state.page, .table, "the second went back to the table")
    }

    // MARK: - Stepping (item 10)

    /// In a recording n and N move the cursor, by the count typed first as live.
    func testARecordingStepsByTheTypedCount() {
        for (digits, action, moved) in [([5], Action.stepMany, 5), ([], .stepMany, 10), ([3], .step, 3), ([], .step, 1)] {
            var state = live()
            _ = reduce(&state, .replaying(file: "f", process: "demo", pid: 1))
            _ = reduce(&state, .action(.historyStart))
            let start = state.cursor.position ?? 0
            for d in digits { _ = reduce(&state, .action(.digit(d))) }
            _ = reduce(&state, .action(action))
            XCTAssertEqual(state.cursor.position, start + moved, "\(digits) \(action)")
        }
    }

    func testTheCountTypedIsWhatIsAskedFor() {
        var state = live()
        var paused = BatchBuilder().build()
        paused.trailer.gate = GateState(paused: true)
        _ = reduce(&state, .batch(paused))
        XCTAssertEqual(reduce(&state, .action(.stepMany)), [.step(10)])
        _ = reduce(&state, .action(.digit(5)))
        XCTAssertEqual(reduce(&state, .action(.step)), [.step(5)])
        _ = reduce(&state, .action(.digit(5)))
        XCTAssertEqual(reduce(&state, .action(.stepMany)), [.step(5)])
    }

    // MARK: - Read-only (item 15)

    func testEveryKeyThatWouldActSaysReadOnly() {
        var state = live()
        _ = reduce(&state, .attached(process: "demo", pid: 4242, readOnly: true))
        state.tree.selection = 2
        for (action, word) in [(Action.cancelSelected, "cancelling"), (.togglePause, "pausing"), (.step, "stepping"),
                               (.stepMany, "stepping")] {
            XCTAssertEqual(reduce(&state, .action(action)), [], "\(action) sends nothing")
            XCTAssertEqual(state.layer, .browsing)
            let notice = state.session.notice
            XCTAssertEqual(notice?.isError, true)
            XCTAssertEqual(notice?.text.hasPrefix("read-only: \(word) is refused"), true, "\(String(describing: notice))")
        }
    }

    // MARK: - PIPELINE sorts by what it shows (item 8)

    /// Shortened names keep their source and their sink (`Just → … → Sink`): sorted by
    /// PIPELINE, rows read in order by source, then sink, whatever the middle hides.
    func testPipelineSortsBySourceThenSink() {
        let names: [[String]] = [["Just", "Map", "Sink"], ["Just", "Zip", "Filter", "Assign"], ["Future", "Sink"],
                                 ["Just", "Sink"], ["Just", "Assign"]]
        let rows = names.enumerated().map { i, parts in
            PipelineRow(id: NodeID(i + 1), name: PipelineName(parts: parts, named: false), location: "",
                        status: .active, stages: parts.count - 1, rate: 0, values: 0, createdNanos: 0,
                        lastEventNanos: 0, warnings: 0)
        }
        XCTAssertEqual(rows.sorted(by: .name, descending: false).map(\.name.text), [
            "Future → Sink", "Just → Assign", "Just → Zip → Filter → Assign", "Just → Map → Sink", "Just → Sink",
        ])
        // The table numbers the same keys once per rebuild: the same order.
        var numbered = rows
        let order = TextOrder.numbers(rows.map(\.name.sortKey))
        for i in numbered.indices { numbered[i].nameOrder = order[i] }
        XCTAssertEqual(numbered.sorted(by: .name, descending: false).map(\.id), rows.sorted(by: .name, descending: false).map(\.id))
    }

    /// PIPELINE takes the width the others leave, and the narrower columns make way
    /// before it is cut to less than a source, `…` and a sink.
    func testPipelineTakesTheWidthLeftOver() {
        let wide = TableColumns(width: 118, locationWidth: 24)
        XCTAssertEqual(wide.width(of: .name), 35)
        XCTAssertEqual(wide.shown.reduce(0) { $0 + $1.width }, 118, "every column of the width is used")
        XCTAssertEqual(TableColumns(width: 78, locationWidth: 24).width(of: .name), 28)
        XCTAssertEqual(TableColumns(width: 98, locationWidth: 0).width(of: .name), 27)
    }

    // MARK: - One pipeline's events (item 12)

    func testOnePipelinesTreeListsOnlyItsEvents() {
        var state = live()
        XCTAssertEqual(state.eventLog, .all)
        state.tree.selection = 5
        _ = reduce(&state, .action(.openPipeline))
        XCTAssertEqual(state.eventLog, .pipeline(4, stages: [4, 5]))
        let listed = state.cursor.log.events(endingAt: state.cursor.log.end, count: 100, among: state.eventLog.stages)
        XCTAssertFalse(listed.isEmpty)
        XCTAssertEqual(Set(listed.map(\.event.node)), [4, 5], "only pipeline #4's stages")
        _ = reduce(&state, .action(.toggleLogFilter))
        XCTAssertEqual(state.eventLog, .stage(5), "f: the selected stage's only")
        _ = reduce(&state, .action(.toggleLogFilter))
        XCTAssertEqual(state.eventLog, .pipeline(4, stages: [4, 5]), "f again: its pipeline's, as shown")
        // No event log on an 80x24 screen: the status line said what f did, and Esc
        // clears that message first.
        XCTAssertEqual(state.session.notice?.text, "event log: pipeline #4's events only (f: the selected stage's)")
        _ = reduce(&state, .action(.dismiss))
        _ = reduce(&state, .action(.dismiss))
        XCTAssertEqual(state.page, .table)
        XCTAssertEqual(state.eventLog, .all)
    }
}
