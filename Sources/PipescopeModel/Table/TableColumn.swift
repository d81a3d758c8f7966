import PipescopeGraph

/// A column of the pipelines table, declared once: its title, its width, how it aligns,
/// when it is dropped, how it sorts, its JSON key, and how it reads a ``PipelineRow``.
///
/// ``allCases`` is the one list, in the order the columns are drawn. The table view draws
/// its header and cells from it (adding only colours and the drawing of a cell),
/// ``TableColumns`` lays it out in a width, `<` `>` step through the sortable columns
/// shown, the title bar names the sorted one, and `snapshot --json` keys each pipeline
/// by it. A column added to the list shows in all of them; its ``ID`` case makes the
/// compiler ask the view how to style it.
///
/// ```swift
/// TableColumn.rate.title                  // "RATE"
/// TableColumn.rate.jsonKey                // "rate"
/// TableColumn.rate.text(row, now: now)    // "12/s"
/// rows.sorted(by: .age, descending: false) // youngest first
/// ```
public struct TableColumn: Identifiable, Sendable, CustomStringConvertible {
    /// Which column it is: what the view styles it by.
    public enum ID: String, Sendable, CaseIterable {
        case warnings, id, name, location, status, wait, stages, rate, lastMinute, values, time, age, lastEvent
    }

    /// How wide a column is, counting the one blank column after it.
    public enum Width: Sendable, Equatable {
        /// Always this wide.
        case fixed(Int)
        /// What the other columns leave: never less than `minimum`; while it would be
        /// less than `preferred`, the droppable columns go (``dropOrder``).
        case rest(preferred: Int, minimum: Int)
        /// As wide as the longest location among the rows, at most `maximum`, plus the
        /// gap; not shown when no row has one.
        case widestLocation(maximum: Int)
        /// This wide when a row has been timed; not shown before.
        case whenTimed(Int)

        /// A ``rest(preferred:minimum:)`` width's two numbers; nil for the others.
        public var rest: (preferred: Int, minimum: Int)? {
            if case .rest(let preferred, let minimum) = self { return (preferred, minimum) }
            return nil
        }
    }

    /// Where a cell's text sits in its column.
    public enum Alignment: Sendable, Equatable {
        case left, right
    }

    /// The sort key of a row with nothing in the column (never timed, not waiting): it
    /// sorts after every row with a value, whichever the direction.
    public static let noValue = Int64.min

    /// Whether a row keyed `a` comes before one keyed `b` (they differ): by value in the
    /// direction asked, ``noValue`` last either way.
    static func precedes(_ a: Int64, _ b: Int64, descending: Bool) -> Bool {
        if a == noValue || b == noValue { return b == noValue }
        return descending ? a > b : a < b
    }

    /// How a column orders rows.
    public enum Sort: Sendable {
        /// By an integer per row, smaller first in ascending order.
        case number(@Sendable (PipelineRow) -> Int64)
        /// By a text per row, in code point order: `numbered` reads the row's place among
        /// the texts when the table has set it (``PipelineRow/nameOrder``), so sorting
        /// compares integers; without it the texts are numbered (``TextOrder``) first.
        case text(@Sendable (PipelineRow) -> String, numbered: @Sendable (PipelineRow) -> Int64?)
    }

    /// A cell as JSON: `snapshot --json`'s value for this column's key.
    public enum JSONValue: Encodable, Equatable, Sendable {
        case integer(Int64)
        case number(Double)
        case string(String)
        case null

        public func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .integer(let n): try c.encode(n)
            case .number(let x): try c.encode(x)
            case .string(let s): try c.encode(s)
            case .null: try c.encodeNil()
            }
        }
    }

    public let id: ID
    /// The header's word (``Theme`` makes `⚠` ASCII).
    public let title: String
    /// How the title bar says it ("sorted by warnings"): the title, unless that is a symbol.
    public let spokenTitle: String
    public let width: Width
    public let alignment: Alignment
    /// Its place among the columns dropped while the table is narrow, first dropped
    /// first; nil: always shown.
    public let dropOrder: Int?
    /// How it sorts; nil: `<` `>` pass it by.
    public let sort: Sort?
    /// Its key in `snapshot --json`'s pipelines; nil: not there.
    public let jsonKey: String?
    /// The cell as plain text at time `now` (the view may shorten it or add a glyph).
    public let text: @Sendable (_ row: PipelineRow, _ now: Int64) -> String
    /// The cell as JSON; only read when ``jsonKey`` is set.
    public let json: @Sendable (PipelineRow) -> JSONValue

    public init(_ id: ID, title: String, spokenTitle: String? = nil, width: Width, alignment: Alignment,
                dropOrder: Int? = nil, sort: Sort?, jsonKey: String?,
                text: @escaping @Sendable (_ row: PipelineRow, _ now: Int64) -> String,
                json: @escaping @Sendable (PipelineRow) -> JSONValue = { _ in .null }) {
        self.id = id
        self.title = title
        self.spokenTitle = spokenTitle ?? title
        self.width = width
        self.alignment = alignment
        self.dropOrder = dropOrder
        self.sort = sort
        self.jsonKey = jsonKey
        self.text = text
        self.json = json
    }

    public var description: String { id.rawValue }
}

extension TableColumn: Equatable, Hashable {
    /// Columns are told apart by their ``id``.
    public static func == (a: TableColumn, b: TableColumn) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

// MARK: - The list

extension TableColumn: CaseIterable {
    /// The columns in the order they are drawn and `<` `>` move through.
    ///
    /// Dropped while PIPELINE would be narrower than 27 columns (room for a source, `…`
    /// and a sink: `TimerPublisher → … → Sink`), first to last: AGE, STAGES, LAST (WAIT
    /// says how long a pipeline has gone without progress), TIME (shown only once a
    /// pipeline has been timed), LAST MINUTE (the sparkline), LOCATION (where a pipeline
    /// was made says more than how its rate moved), VALUES, WAIT. So 120 columns show ⚠ ID
    /// PIPELINE LOCATION STATUS WAIT RATE VALUES, PIPELINE 35 wide when the widest
    /// location is 24 (the sparkline too from 125 columns), 100 the same without LOCATION,
    /// and 80 (78 inside the box) ⚠ ID PIPELINE STATUS WAIT RATE.
    public static let allCases: [TableColumn] = [
        .warnings, .id, .name, .location, .status, .wait, .stages, .rate, .lastMinute, .values, .time, .age, .lastEvent,
    ]

    /// `⚠N`: lifecycle warnings on its stages (blank for none).
    public static let warnings = TableColumn(
        .warnings, title: "⚠", spokenTitle: "warnings", width: .fixed(3), alignment: .left,
        sort: .number { Int64($0.warnings) }, jsonKey: "warnings",
        text: { row, _ in row.warnings > 0 ? "⚠" + CellText.count(row.warnings) : "" },
        json: { .integer(Int64($0.warnings)) })

    /// `#id`: the root stage's id; on a folded row how many pipelines it stands for,
    /// `×215` (``PlaceFolds``: the ID column is never dropped, so 80 columns show it). A
    /// folded row sorts by the id of its oldest live pipeline.
    public static let id = TableColumn(
        .id, title: "ID", width: .fixed(7), alignment: .right,
        sort: .number { Int64(bitPattern: $0.id) }, jsonKey: "id",
        text: { row, _ in row.fold.map { "×" + CellText.count($0.count) } ?? "#\(row.id)" },
        json: { .integer(Int64(bitPattern: $0.id)) })

    /// The pipeline's name: its `pipescopeName`, or its operators in code order. It
    /// takes the width the other columns leave. It sorts by what a shortened name keeps
    /// on screen, the source and then the subscriber (``PipelineName/sortKey``).
    public static let name = TableColumn(
        .name, title: "PIPELINE", width: .rest(preferred: 27, minimum: 7), alignment: .left,
        sort: .text({ $0.name.sortKey }, numbered: { $0.nameOrder }), jsonKey: "name",
        text: { row, _ in row.name.text }, json: { .string($0.name.text) })

    /// Where the program made it (the root's location, short).
    public static let location = TableColumn(
        .location, title: "LOCATION", width: .widestLocation(maximum: 24), alignment: .left, dropOrder: 5,
        sort: .text({ $0.location }, numbered: { $0.locationOrder }), jsonKey: "location",
        text: { row, _ in row.location }, json: { $0.location.isEmpty ? .null : .string($0.location) })

    /// The root stage's status; live ones sort first, then the ways of ending.
    public static let status = TableColumn(
        .status, title: "STATUS", width: .fixed(12), alignment: .left,
        sort: .number { Int64(rank($0.status)) }, jsonKey: "status",
        text: { row, _ in row.status.rawValue }, json: { .string($0.status.rawValue) })

    /// Where the pipeline waits, in a few words (``Wait/cell(holder:now:)``): `waits ↑
    /// Future 41s`, `held: demand 0 12s`, `no subscription 3s`; empty while it flows.
    /// Descending is the longest wait first, flowing pipelines last. JSON has the
    /// seconds waited (null while flowing); the node's `wait` has the whole verdict.
    public static let wait = TableColumn(
        .wait, title: "WAIT", width: .fixed(19), alignment: .left, dropOrder: 7,
        sort: .number { $0.wait.map { -$0.sinceNanos } ?? TableColumn.noValue }, jsonKey: "waitSeconds",
        text: { row, now in row.wait.map { $0.cell(holder: row.waitHolder, now: now) } ?? "" },
        json: { row in row.waitNanos.map { .number(Double($0 / 1_000_000) / 1000) } ?? .null })

    /// How many stages the pipeline has.
    public static let stages = TableColumn(
        .stages, title: "STAGES", width: .fixed(7), alignment: .right, dropOrder: 1,
        sort: .number { Int64($0.stages) }, jsonKey: "stages",
        text: { row, _ in String(row.stages) }, json: { .integer(Int64($0.stages)) })

    /// Events per second over the last few seconds.
    public static let rate = TableColumn(
        .rate, title: "RATE", width: .fixed(9), alignment: .right,
        // Rates are never negative: their bit patterns order as the numbers do.
        sort: .number { Int64(bitPattern: max(0, $0.rate).bitPattern) }, jsonKey: "rate",
        text: { row, _ in CellText.rate(row.rate) }, json: { .number($0.rate) })

    /// The last minute's events as a sparkline, drawn by the view from the table's
    /// activity (a row does not carry it): no text, no sort, no JSON.
    public static let lastMinute = TableColumn(
        .lastMinute, title: "LAST MINUTE", width: .fixed(13), alignment: .left, dropOrder: 4,
        sort: nil, jsonKey: nil, text: { _, _ in "" })

    /// Values delivered to the subscriber.
    public static let values = TableColumn(
        .values, title: "VALUES", width: .fixed(8), alignment: .right, dropOrder: 6,
        sort: .number { Int64($0.values) }, jsonKey: "values",
        text: { row, _ in CellText.count(row.values) }, json: { .integer(Int64($0.values)) })

    /// Its costliest code per value (p50) and whose it is: `2.1 ms Map`; sorting by it
    /// finds the operator that costs most. JSON (`slowestNanos`): that p50 in
    /// nanoseconds, or null before any value was timed.
    public static let time = TableColumn(
        .time, title: "TIME", spokenTitle: "time per value", width: .whenTimed(17), alignment: .left, dropOrder: 3,
        sort: .number { $0.slowest?.p50 ?? TableColumn.noValue }, jsonKey: "slowestNanos",
        text: { row, _ in row.slowest.map { "\(CellText.duration($0.p50)) \($0.name)" } ?? "" },
        json: { $0.slowest.map { .integer($0.p50) } ?? .null })

    /// How long ago the root was made; ascending is youngest first. JSON has the time
    /// itself (nanoseconds since 1970 on the program's clock), not an age.
    public static let age = TableColumn(
        .age, title: "AGE", width: .fixed(6), alignment: .right, dropOrder: 0,
        sort: .number { -$0.createdNanos }, jsonKey: "createdNanos",
        text: { row, now in CellText.age(now - row.createdNanos) }, json: { .integer($0.createdNanos) })

    /// How long ago its newest event was (`-`: none known); ascending is the most recent
    /// first. JSON has the time itself, or null.
    public static let lastEvent = TableColumn(
        .lastEvent, title: "LAST", width: .fixed(6), alignment: .right, dropOrder: 2,
        sort: .number { -$0.lastEventNanos }, jsonKey: "lastEventNanos",
        text: { row, now in row.lastEventNanos > 0 ? CellText.age(now - row.lastEventNanos) : "-" },
        json: { $0.lastEventNanos > 0 ? .integer($0.lastEventNanos) : .null })

    /// Live first, then the ways of ending.
    static func rank(_ status: NodeStatus) -> Int {
        switch status {
        case .active: return 0
        case .subscribing: return 1
        case .failed: return 2
        case .cancelled: return 3
        case .finished: return 4
        }
    }
}

// MARK: - Sorting

extension TableColumn {
    /// Whether `a` comes before `b` in ascending order of this column (equal: neither;
    /// a column that does not sort holds every row equal).
    func ascending(_ a: PipelineRow, _ b: PipelineRow) -> Bool {
        switch sort {
        case .number(let key): return key(a) < key(b)
        case .text(let text, _): return text(a) < text(b)
        case nil: return false
        }
    }

    /// One integer per row whose ascending order is this column's ascending order.
    func keys(_ rows: [PipelineRow]) -> [Int64] {
        // Through the buffer: `map` would copy each row (its strings retained and
        // released), and at 10,000 rows that would be most of a sort.
        rows.withUnsafeBufferPointer { rows in
            switch sort {
            case .number(let key): return rows.indices.map { key(rows[$0]) }
            case .text(let text, let numbered):
                let known = rows.indices.compactMap { numbered(rows[$0]) }
                return known.count == rows.count ? known : TextOrder.numbers(rows.indices.map { text(rows[$0]) })
            case nil: return [Int64](repeating: 0, count: rows.count)
            }
        }
    }
}
