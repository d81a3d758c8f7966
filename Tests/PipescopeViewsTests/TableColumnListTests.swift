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
                            slowest: SlowStage(node: 1, name: "Sink", p50: 900))
        let b = PipelineRow(id: 2, name: PipelineName(parts: ["Timer", "Map", "Sink"], named: false),
                            location: "B.swift:2", status: .finished, stages: 3, rate: 40, values: 12_345,
                            createdNanos: now - 5 * second, lastEventNanos: now - 2 * second, warnings: 4,
                            slowest: SlowStage(node: 3, name: "Map", p50: 2_100_000))
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
        XCTAssertEqual(cell(row, columns.shown[8]), "12.3k")

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

    func testNarrowTablesDropColumnsInTheListsDropOrder() {
        let dropOrder = TableColumn.allCases.filter { $0.dropOrder != nil }.sorted { $0.dropOrder! < $1.dropOrder! }
        XCTAssertEqual(dropOrder.map(\.id), [.location, .age, .stages, .time, .lastMinute, .lastEvent, .values])
        var dropped: [TableColumn.ID] = []
        for width in stride(from: 200, through: 20, by: -1) {
            let columns = TableColumns(width: width, locationWidth: 20, timed: true)
            for column in TableColumn.allCases where !columns.shows(column) && !dropped.contains(column.id) {
                dropped.append(column.id)
            }
            let name = columns.width(of: .name) ?? 0
            let total = columns.shown.last.map { $0.x + $0.width } ?? 0
            if name > 7 { XCTAssertEqual(total, width, "the columns fill the width at \(width)") }
            XCTAssertTrue(name >= 19 || dropped.count == dropOrder.count, "PIPELINE at \(width): \(name)")
        }
        XCTAssertEqual(dropped, dropOrder.map(\.id))
    }
}
