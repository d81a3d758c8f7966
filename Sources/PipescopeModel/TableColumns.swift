/// Which columns of the pipelines table fit a width, and how wide each is: the view
/// draws them, and `<` `>` move the sort through the ones shown.
///
/// Always shown: the warnings mark, ID, PIPELINE, STATUS and RATE. The others go, first
/// to last, while PIPELINE would be narrower than ``preferredName`` columns:
/// LOCATION (and only shown when a pipeline has one), AGE, STAGES, the last minute's
/// sparkline, LAST, VALUES. So 120 columns show them all, and 80 columns (78 inside
/// the box) show ⚠ ID PIPELINE STATUS RATE, the sparkline, VALUES and LAST.
///
/// ```swift
/// let c = TableColumns(width: 78, locationWidth: 20)
/// c.shows(.location)   // false
/// c.name               // 22
/// ```
public struct TableColumns: Sendable {
    public static let preferredName = 20
    /// The droppable columns, in the order they are dropped.
    public enum Droppable: CaseIterable, Sendable { case location, age, stages, sparkline, lastEvent, values }
    public static let sparkWidth = 12

    public private(set) var dropped: Set<Droppable> = []
    public private(set) var location: Int
    public private(set) var name = 0
    public let warnings = 3, id = 6, status = 12, stages = 7, rate = 9, sparkline = sparkWidth + 1, values = 8, age = 6,
        lastEvent = 6

    public init(width: Int, locationWidth: Int) {
        location = locationWidth > 0 ? min(24, locationWidth) + 1 : 0
        if location == 0 { dropped.insert(.location) }
        for column in Droppable.allCases {
            name = width - fixedWidth
            if name >= Self.preferredName { break }
            dropped.insert(column)
        }
        name = max(8, width - fixedWidth)
    }

    private var fixedWidth: Int {
        var total = warnings + id + status + rate
        for column in Droppable.allCases where !dropped.contains(column) {
            switch column {
            case .location: total += location
            case .age: total += age
            case .stages: total += stages
            case .sparkline: total += sparkline
            case .lastEvent: total += lastEvent
            case .values: total += values
            }
        }
        return total
    }

    public func has(_ column: Droppable) -> Bool { !dropped.contains(column) }

    /// Whether a sort column is on screen.
    public func shows(_ column: TableColumn) -> Bool {
        switch column {
        case .location: return has(.location)
        case .age: return has(.age)
        case .stages: return has(.stages)
        case .values: return has(.values)
        case .lastEvent: return has(.lastEvent)
        case .warnings, .id, .name, .status, .rate: return true
        }
    }
}
