/// The pipelines table's columns laid out in a width: which of ``TableColumn/allCases``
/// are shown, where, and how wide. The view draws the ones shown, and `<` `>` move the
/// sort through every sortable one that has something to show, the sorted column being
/// always on screen.
///
/// Each column is as wide as its ``TableColumn/width`` says, counting the blank column
/// after it. LOCATION is shown only when a pipeline has one, TIME only when one has
/// been timed. While the column that takes
/// the rest (PIPELINE) would be narrower than it prefers, the droppable columns go in
/// their ``TableColumn/dropOrder``: AGE, STAGES, LAST, TIME, the sparkline, LOCATION,
/// VALUES, WAIT. The sorted column never goes: at 80 columns, sorting by TIME shows
/// TIME (and the next droppable one goes in its place), so a narrow terminal can still
/// rank pipelines by any column, as htop's can.
///
/// ```swift
/// let c = TableColumns(width: 78, locationWidth: 20)
/// c.shows(.location)        // false
/// c.width(of: .name)        // 28: 27 of text and the gap
/// TableColumns(width: 78, locationWidth: 20, sorted: .location).shows(.location)  // true
/// ```
public struct TableColumns: Sendable {
    /// A column shown: where it starts (from the table's left) and how wide it is, gap
    /// included.
    public struct Placed: Sendable {
        public let column: TableColumn
        public let x: Int
        public let width: Int
    }

    /// The list laid out, shown or not, in order.
    public let list: [TableColumn]
    /// The columns shown, left to right.
    public private(set) var shown: [Placed] = []
    /// The columns that have something to show (LOCATION when a row has one, TIME when
    /// one was timed), whether the width leaves room for them or not: what `>` sorts by.
    private var available: Set<TableColumn.ID> = []

    /// Lays out `list` in `width` columns; `locationWidth` is the longest location
    /// among the rows (0: none); `timed`: whether a row has a TIME; `sorted`: the column
    /// the rows are sorted by, kept however narrow the width.
    public init(width: Int, locationWidth: Int, timed: Bool = false, list: [TableColumn] = TableColumn.allCases,
                sorted: TableColumn? = nil) {
        self.list = list
        var widths: [TableColumn.ID: Int] = [:]
        for column in list {
            switch column.width {
            case .fixed(let n): widths[column.id] = n
            case .widestLocation(let maximum): widths[column.id] = locationWidth > 0 ? min(maximum, locationWidth) + 1 : 0
            case .whenTimed(let n): widths[column.id] = timed ? n : 0
            case .rest: break
            }
        }
        var hidden = Set(widths.filter { $0.value == 0 }.keys)
        available = Set(list.map(\.id)).subtracting(hidden)
        // The columns that take the rest share it evenly (the first takes what is over).
        let rest = list.filter { $0.width.rest != nil }
        func shares() -> [Int] {
            let left = width - list.reduce(0) { hidden.contains($1.id) ? $0 : $0 + (widths[$1.id] ?? 0) }
            return rest.indices.map { left / rest.count + ($0 == 0 ? left % rest.count : 0) }
        }
        let droppable = list.filter { $0.dropOrder != nil && $0 != sorted }.sorted { $0.dropOrder! < $1.dropOrder! }
        for column in droppable {
            if zip(rest, shares()).allSatisfy({ $1 >= $0.width.rest!.preferred }) { break }
            hidden.insert(column.id)
        }
        for (column, share) in zip(rest, shares()) { widths[column.id] = max(column.width.rest!.minimum, share) }
        var x = 0
        for column in list where !hidden.contains(column.id) {
            let w = widths[column.id] ?? 0
            shown.append(Placed(column: column, x: x, width: w))
            x += w
        }
    }

    /// Whether `column` is on screen.
    public func shows(_ column: TableColumn) -> Bool { shown.contains { $0.column == column } }

    /// How wide `column` is, gap included, if it is shown.
    public func width(of column: TableColumn) -> Int? { shown.first { $0.column == column }?.width }

    /// The sortable column `step` places from `column` in the list (wrapping), among
    /// those with something to show, shown now or not: sorted by, a column is shown
    /// (``init(width:locationWidth:timed:list:sorted:)``). `column` itself when no other
    /// can be reached.
    public func sortColumn(from column: TableColumn, step: Int) -> TableColumn {
        guard let start = list.firstIndex(of: column), step != 0 else { return column }
        let n = list.count
        for k in 1...n {
            let next = list[((start + k * step.signum()) % n + n) % n]
            if next.sort != nil, available.contains(next.id) { return next }
        }
        return column
    }
}
