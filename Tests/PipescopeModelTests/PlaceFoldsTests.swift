import PipescopeGraph
import XCTest

@testable import PipescopeModel

/// How a folded row sums up its pipelines, and where it sorts: rows made by hand, so every
/// column's rule is seen on figures that differ (the live tests' pipelines are alike).
final class PlaceFoldsTests: XCTestCase {
    let chain = PipelineName(parts: ["Inbox.open", "PassthroughSubject", "Filter", "Sink"], named: false, built: true)

    private func row(_ id: NodeID, place: Int?, status: NodeStatus = .active, rate: Double, values: Int, created: Int64,
                     last: Int64, warnings: Int = 0, wait: Wait? = nil, holder: String = "",
                     slowest: SlowStage? = nil) -> PipelineRow {
        var row = PipelineRow(id: id, name: chain, location: "Inbox.swift:42", status: status, stages: 2, rate: rate,
                              values: values, createdNanos: created, lastEventNanos: last, warnings: warnings, wait: wait,
                              waitHolder: holder, waitNanos: wait.map { 100 - $0.sinceNanos }, slowest: slowest)
        row.place = place
        return row
    }

    private var rows: [PipelineRow] {
        [
            row(3, place: 7, status: .cancelled, rate: 1, values: 10, created: 5, last: 50, warnings: 1),
            row(5, place: 7, rate: 2.5, values: 20, created: 8, last: 90,
                wait: Wait(reason: .upstream, at: 6, sinceNanos: 40), holder: "Future",
                slowest: SlowStage(node: 5, name: "Map", p50: 2_000)),
            row(9, place: 7, status: .failed, rate: 0.5, values: 1, created: 9, last: 60, warnings: 2,
                wait: Wait(reason: .demand, at: 9, sinceNanos: 20), holder: "Sink",
                slowest: SlowStage(node: 10, name: "Filter", p50: 7_000)),
            row(11, place: 7, rate: 0, values: 0, created: 8, last: 80,
                slowest: SlowStage(node: 12, name: "FlatMap", p50: 7_000)),
            row(2, place: nil, rate: 4, values: 30, created: 1, last: 70),
            row(4, place: 8, rate: 9, values: 5, created: 2, last: 75),
        ]
    }

    func testAFoldedRowSumsAndPicksEachColumnByItsRule() throws {
        let built = PlaceFolds.fold(rows)
        XCTAssertEqual(built.count, 7, "six rows, and one folded row for place 7 (place 8 has one pipeline)")
        XCTAssertEqual(built.map(\.isMember), [true, true, true, true, false, false, false])
        let folded = try XCTUnwrap(built.last)
        XCTAssertEqual(folded.fold, PlaceFold(count: 4, members: [3, 5, 9, 11]))
        XCTAssertEqual(folded.rowID, .place(7))
        XCTAssertEqual(folded.id, 5, "the oldest live one: #3 ended, #5 and #11 made at 8, the lower id")
        XCTAssertEqual(folded.rate, 4)
        XCTAssertEqual(folded.values, 31)
        XCTAssertEqual(folded.warnings, 3)
        XCTAssertEqual(folded.stages, 8)
        XCTAssertEqual(folded.createdNanos, 5, "the oldest")
        XCTAssertEqual(folded.lastEventNanos, 90, "the newest")
        XCTAssertEqual(folded.status, .failed, "the worst")
        XCTAssertEqual(folded.wait, Wait(reason: .demand, at: 9, sinceNanos: 20), "the longest")
        XCTAssertEqual(folded.waitHolder, "Sink", "the longest wait's holder")
        XCTAssertEqual(folded.waitNanos, 80)
        XCTAssertEqual(folded.slowest, SlowStage(node: 10, name: "Filter", p50: 7_000), "the costliest, the first of equals")
        XCTAssertEqual(folded.name, chain)
        XCTAssertEqual(folded.location, "Inbox.swift:42")
    }

    func testFoldedRowsSortAmongTheOthersAndOpenRowsKeepTheirMembersUnderThem() {
        let built = PlaceFolds.fold(rows)
        let ids = { (positions: [Int]) in positions.map { built[$0].rowID } }
        XCTAssertEqual(ids(PlaceFolds.positions(built, by: .values, descending: true, open: [])),
                       [.place(7), .pipeline(2), .pipeline(4)], "31, 30, 5")
        XCTAssertEqual(ids(PlaceFolds.positions(built, by: .rate, descending: true, open: [])),
                       [.pipeline(4), .pipeline(2), .place(7)], "9, then 4 and 4: ties by id, #2 before the row's #5")
        XCTAssertEqual(ids(PlaceFolds.positions(built, by: .values, descending: false, open: [7])),
                       [.pipeline(4), .pipeline(2), .place(7), .pipeline(11), .pipeline(9), .pipeline(3), .pipeline(5)],
                       "open: its members under it, sorted the same way")
        XCTAssertEqual(ids(PlaceFolds.positions(built, by: .values, descending: false, open: [8])),
                       [.pipeline(4), .pipeline(2), .place(7)], "a place with no folded row opens nothing")
    }
}
