import PipescopeGraph
import TerminalKit
import XCTest

@testable import PipescopeModel
@testable import PipescopeViews

/// A pipelines-table column is one descriptor: the header, the cells, the sort keys,
/// `<` `>` and `snapshot --json` all read ``TableColumn/allCases``, so a column added to
/// the list shows in every one of them.
final class TableColumnListTests: XCTestCase {
    let second: Int64 = 1_000_000_000
    let now: Int64 = 1_767_225_600_000_000_000

    /// Two rows that differ in every column: `a` is smaller in each field, and older.
    func rows() -> (a: PipelineRow, b: PipelineRow) {
        let a = PipelineRow(id: 1, name: PipelineName(parts: ["Just", "Sink"], named: false), location: "A.swift:1",
                            status: .active, stages: 2, rate: 1, values: 3, createdNanos: now - 90 * second,
                            lastEventNanos: now - 20 * second, warnings: 1,
                            wait: Wait(reason: .demand, at: 1, sinceNanos: now - 3 * second), waitNanos: 3 * second,
                            slowest: SlowStage(node: 1, name: "Sink", p50: 900))
        let b = PipelineRow(id: 2, name: PipelineName(parts: ["Timer", "Map", "Sink"], named: false),
                            location: "B.swift:2", status: .finished, stages: 3, rate: 40, values: 12_345,
                            createdNanos: now - 5 * second, lastEventNanos: now - 2 * second, warnings: 4,
                            wait: Wait(reason: .upstream, at: 3, sinceNanos: now - 41 * second), waitHolder: "Timer",
                            waitNanos: 41 * second + 250_000_000, slowest: SlowStage(node: 3, name: "Map", p50: 2_100_000))
        return (a, b)
    }

    /// The header and one row drawn at `width` from `columns`, as text.
    func drawn(_ row: PipelineRow, columns: TableColumns, width: Int) -> (header: [Character], row: [Character]) {
        let state = AppState(targetName: "t")  // sorted by RATE, descending
        var buffer = ScreenBuffer(width: width, height: 2)
        TableView.renderHeader(state.table, columns: columns, theme: .plainUnicode, x: 0, y: 0, width: width,
                               into: &buffer)
        TableView.renderRow(row, state: state, columns: columns, now: now, theme: .plainUnicode, x: 0, y: 1,
                            into: &buffer)
        let lines = buffer.lines().map { Array($0.padding(toLength: width, withPad: " ", startingAt: 0)) }
        return (lines[0], lines[1])
    }

    /// The text in a placed column's cell, less its gap, without the padding.
    func cell(_ line: [Character], _ placed: TableColumns.Placed) -> String {
        String(line[placed.x..<(placed.x + placed.width - 1)]).trimmingCharacters(in: .whitespaces)
    }

    // MARK: - The list

    func testEveryColumnInTheListIsDrawnSortedAndKeyedByItsDescriptor() {
        let (a, b) = rows()
        let list = TableColumn.allCases
        XCTAssertEqual(list.map(\.id), TableColumn.ID.allCases, "one descriptor per id, in display order")

        // Drawn: wide enough for all, each title over its own column, each cell its text.
        let columns = TableColumns(width: 200, locationWidth: 9, timed: true)
        XCTAssertEqual(columns.shown.map(\.column), list)
        let (header, row) = drawn(b, columns: columns, width: 200)
        for placed in columns.shown {
            let column = placed.column
            XCTAssertEqual(cell(header, placed), column.title + (column == .rate ? "▼" : ""), "\(column)")
            let text = column.text(b, now)
            switch column.id {
            case .status:
                XCTAssertEqual(cell(row, placed), Theme.plainUnicode.glyph(.finished) + " " + text, "the view adds a glyph")
            case .lastMinute: XCTAssertEqual(text, "", "drawn from the activity, not the row")
            default: XCTAssertEqual(cell(row, placed), text, "\(column)")
            }
        }
        XCTAssertEqual(cell(row, columns.shown[0]), "⚠4")
        XCTAssertEqual(cell(row, columns.shown[5]), "waits ↑ Timer 41s")
        XCTAssertEqual(cell(row, columns.shown[9]), "12.3k")

        // Sorted: each sortable column orders by its own field, ascending age youngest
        // first and ascending LAST most recent first; the rest are passed by.
        let youngerFirst: Set<TableColumn.ID> = [.age, .lastEvent]
        let sortable = list.filter { $0.sort != nil }
        XCTAssertEqual(list.filter { $0.sort == nil }.map(\.id), [.lastMinute])
        for column in sortable {
            let expected: [NodeID] = youngerFirst.contains(column.id) ? [2, 1] : [1, 2]
            XCTAssertEqual([b, a].sorted(by: column, descending: false).map(\.id), expected, "\(column)")
            XCTAssertEqual([a, b].sorted(by: column, descending: true).map(\.id), expected.reversed(), "\(column)")
        }
        var stepped: [TableColumn] = []
        var sort = TableColumn.warnings
        for _ in sortable {
            sort = columns.sortColumn(from: sort, step: 1)
            stepped.append(sort)
        }
        XCTAssertEqual(stepped, Array(sortable.dropFirst()) + [sortable[0]], "> steps through the sortable ones")

        // Keyed: one JSON key per column but the sparkline, each value the column's.
        let json = SnapshotJSON.PipelineJSON(row: b).fields
        XCTAssertEqual(Set(json.keys), Set(list.compactMap(\.jsonKey)))
        XCTAssertEqual(list.compactMap(\.jsonKey).count, json.count, "no two columns share a key")
        for column in list {
            if let key = column.jsonKey { XCTAssertEqual(json[key], column.json(b), "\(column)") }
        }
        XCTAssertEqual(json["createdNanos"], .integer(now - 5 * second))
        XCTAssertEqual(json["waitSeconds"], .number(41.25))
    }

    func testAColumnAddedToTheListShowsInTheHeaderTheRowsTheSortAndTheJSON() {
        let (a, b) = rows()
        // DEPTH: the stages under another title, key and order (deepest first).
        let depth = TableColumn(.stages, title: "DEPTH", width: .fixed(8), alignment: .right,
                                sort: .number { -Int64($0.stages) }, jsonKey: "depth",
                                text: { row, _ in "d\(row.stages)" }, json: { .integer(Int64($0.stages)) })
        let list: [TableColumn] = [.warnings, .id, .name, .status, .rate, depth]
        let columns = TableColumns(width: 80, locationWidth: 0, list: list)
        XCTAssertEqual(columns.shown.map(\.column.title), ["⚠", "ID", "PIPELINE", "STATUS", "RATE", "DEPTH"])
        let placed = columns.shown[5]
        XCTAssertEqual(placed.x + placed.width, 80, "PIPELINE takes what the others leave")

        let (header, row) = drawn(a, columns: columns, width: 80)
        XCTAssertEqual(cell(header, placed), "DEPTH")
        XCTAssertEqual(cell(row, placed), "d2")

        XCTAssertEqual(columns.sortColumn(from: .rate, step: 1).title, "DEPTH")
        XCTAssertEqual(columns.sortColumn(from: depth, step: 1), .warnings, "wrapping")
        XCTAssertEqual([a, b].sorted(by: depth, descending: false).map(\.id), [2, 1], "deepest first")

        let json = SnapshotJSON.PipelineJSON(row: a, columns: list).fields
        XCTAssertEqual(Set(json.keys), ["warnings", "id", "name", "status", "rate", "depth"])
        XCTAssertEqual(json["depth"], .integer(2))
    }

    func testTheWaitColumnSaysTheVerdictAndSortsTheLongestWaitFirst() {
        func row(_ id: NodeID, _ wait: Wait?, holder: String = "") -> PipelineRow {
            PipelineRow(id: id, name: PipelineName(parts: ["P\(id)"], named: false), location: "", status: .active,
                        stages: 1, rate: 0, values: 0, createdNanos: now - 60 * second, lastEventNanos: 0, warnings: 0,
                        wait: wait, waitHolder: holder)
        }
        let rows = [
            row(1, nil),
            row(2, Wait(reason: .upstream, at: 9, sinceNanos: now - 41 * second), holder: "Future"),
            row(3, Wait(reason: .demand, at: 3, sinceNanos: now - 12 * second, lastRequest: .count(1))),
            row(4, Wait(reason: .subscription, at: 4, sinceNanos: now - 3 * second)),
            row(5, nil),
        ]
        XCTAssertEqual(rows.map { TableColumn.wait.text($0, now) },
                       ["", "waits ↑ Future 41s", "held: demand 0 12s", "no subscription 3s", ""])
        XCTAssertEqual(rows.sorted(by: .wait, descending: true).map(\.id), [2, 3, 4, 1, 5],
                       "longest first; flowing last, by id")
        // Rows with nothing in the column (flowing here, never timed in TIME) come last
        // whichever the direction: ascending is the shortest wait first, not the blanks.
        XCTAssertEqual(rows.sorted(by: .wait, descending: false).map(\.id), [4, 3, 2, 1, 5])
        // At 80 columns (78 in the box) WAIT is shown, with room for its longest words.
        let columns = TableColumns(width: 78, locationWidth: 20)
        XCTAssertEqual(columns.shown.map(\.column.id), [.warnings, .id, .name, .status, .wait, .rate])
        // At 100 (98), the sparkline too while no pipeline has a location; at 120 (118)
        // with the demo's widest location (`…ifecycleStories.swift:31`, 24), LOCATION
        // rather than the sparkline, PIPELINE 35 wide; from 125 (123) both.
        XCTAssertEqual(TableColumns(width: 98, locationWidth: 0).shown.map(\.column.id),
                       [.warnings, .id, .name, .status, .wait, .rate, .lastMinute, .values])
        XCTAssertEqual(TableColumns(width: 98, locationWidth: 0).width(of: .name), 27)
        XCTAssertEqual(TableColumns(width: 118, locationWidth: 24).shown.map(\.column.id),
                       [.warnings, .id, .name, .location, .status, .wait, .rate, .values])
        XCTAssertEqual(TableColumns(width: 118, locationWidth: 24).width(of: .name), 35)
        XCTAssertEqual(TableColumns(width: 123, locationWidth: 24).shown.map(\.column.id),
                       [.warnings, .id, .name, .location, .status, .wait, .rate, .lastMinute, .values])
        XCTAssertEqual(columns.width(of: .wait), 19)
        let (_, drawn) = drawn(rows[2], columns: columns, width: 78)
        let placed = columns.shown[4]
        XCTAssertEqual(cell(drawn, placed), "held: demand 0 12s")
        var buffer = ScreenBuffer(width: 78, height: 1)
        TableView.renderRow(rows[1], state: AppState(targetName: "t"), columns: columns, now: now, theme: .plainASCII,
                            x: 0, y: 0, into: &buffer)
        XCTAssertEqual(String(Array(buffer.lines()[0].padding(toLength: 78, withPad: " ", startingAt: 0))[placed.x..<(placed.x + placed.width - 1)])
            .trimmingCharacters(in: .whitespaces), "waits ^ Future 41s", "ASCII")
    }

    func testNarrowTablesDropColumnsInTheListsDropOrder() {
        let dropOrder = TableColumn.allCases.filter { $0.dropOrder != nil }.sorted { $0.dropOrder! < $1.dropOrder! }
        XCTAssertEqual(dropOrder.map(\.id), [.age, .stages, .lastEvent, .time, .lastMinute, .location, .values, .wait])
        var dropped: [TableColumn.ID] = []
        for width in stride(from: 200, through: 20, by: -1) {
            let columns = TableColumns(width: width, locationWidth: 20, timed: true)
            for column in TableColumn.allCases where !columns.shows(column) && !dropped.contains(column.id) {
                dropped.append(column.id)
            }
            let name = columns.width(of: .name) ?? 0
            let total = columns.shown.last.map { $0.x + $0.width } ?? 0
            if name > 7 { XCTAssertEqual(total, width, "the columns fill the width at \(width)") }
            XCTAssertTrue(name >= 22 || dropped.count == dropOrder.count, "PIPELINE at \(width): \(name)")
        }
        XCTAssertEqual(dropped, dropOrder.map(\.id))
    }

    /// The sorted column is never dropped: at 80 columns (78 in the box) `>` reaches every
    /// column with something in it, and the one sorted by shows, in place of the next
    /// droppable one (#43 item 7: TIME, which names the costliest operator, at 80x24).
    func testTheSortedColumnShowsHoweverNarrowTheTable() {
        let narrow = TableColumns(width: 78, locationWidth: 20, timed: true)
        XCTAssertFalse(narrow.shows(.time))
        let byTime = TableColumns(width: 78, locationWidth: 20, timed: true, sorted: .time)
        XCTAssertEqual(byTime.shown.map(\.column.id), [.warnings, .id, .name, .status, .rate, .time])
        XCTAssertEqual(byTime.shown.last.map { $0.x + $0.width }, 78, "still fills the width, no more")
        XCTAssertEqual(TableColumns(width: 78, locationWidth: 20, timed: true, sorted: .wait).shown.map(\.column.id),
                       narrow.shown.map(\.column.id), "a column shown anyway changes nothing")

        // `>` from RATE goes through every sortable column that has something to show.
        var stepped: [TableColumn.ID] = []
        var sort = TableColumn.rate
        repeat {
            sort = TableColumns(width: 78, locationWidth: 20, timed: true, sorted: sort).sortColumn(from: sort, step: 1)
            stepped.append(sort.id)
        } while sort != .rate && stepped.count < 20
        XCTAssertEqual(stepped, [.values, .time, .age, .lastEvent, .warnings, .id, .name, .location, .status, .wait,
                                 .stages, .rate])
        // Not TIME while nothing was timed, nor LOCATION while no pipeline has one.
        let bare = TableColumns(width: 78, locationWidth: 0, timed: false, sorted: .rate)
        XCTAssertEqual(bare.sortColumn(from: .values, step: 1), .age)
        XCTAssertEqual(bare.sortColumn(from: .name, step: 1), .status)
    }
}
