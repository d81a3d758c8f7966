import Foundation

/// A column of `pipescope top --prometheus`' table of programs: its title, width and how
/// it reads and orders a ``FleetRow``. ``all`` is the list, in the order drawn; `<` `>`
/// step through it as they do through the pipelines table's columns, `i` inverts.
///
/// ```swift
/// FleetColumn.waiting.text(row)   // "2"
/// FleetColumn.all.map(\.title)    // ["INSTANCE", "PIPELINES", "WAITING", "LINTS", "DROPPED", "ATTACH"]
/// ```
public struct FleetColumn: Equatable, Sendable {
    public enum ID: String, Sendable, CaseIterable {
        case instance, pipelines, waiting, lints, dropped, attach
    }

    public let id: ID
    public let title: String
    /// Columns wide, counting the gap after it (a number's: a blank before its title too,
    /// and the gap takes the sort mark); nil: what the others leave (at least 12).
    /// INSTANCE's is its most: the view narrows it to the longest instance shown.
    public let width: Int?
    /// Numbers sit right, text left.
    public let rightAligned: Bool

    public static func == (a: FleetColumn, b: FleetColumn) -> Bool { a.id == b.id }

    public static let instance = FleetColumn(id: .instance, title: "INSTANCE", width: 32, rightAligned: false)
    public static let pipelines = FleetColumn(id: .pipelines, title: "PIPELINES", width: 11, rightAligned: true)
    public static let waiting = FleetColumn(id: .waiting, title: "WAITING", width: 9, rightAligned: true)
    public static let lints = FleetColumn(id: .lints, title: "LINTS", width: 7, rightAligned: true)
    public static let dropped = FleetColumn(id: .dropped, title: "DROPPED", width: 9, rightAligned: true)
    /// Where Enter attaches: the probe's address, `pid N`, or `-` when it cannot.
    public static let attach = FleetColumn(id: .attach, title: "ATTACH", width: nil, rightAligned: false)

    public static let all: [FleetColumn] = [.instance, .pipelines, .waiting, .lints, .dropped, .attach]

    public static func column(_ id: ID) -> FleetColumn { all.first { $0.id == id }! }

    /// The number the column shows; nil for the text columns and a series the program lacks.
    public func number(_ row: FleetRow) -> Double? {
        switch id {
        case .pipelines: return row.pipelines
        case .waiting: return row.waiting
        case .lints: return row.lints
        case .dropped: return row.dropped
        case .instance, .attach: return nil
        }
    }

    /// The cell's text: a count as the pipelines table writes one (12.3k), `-` for none.
    public func text(_ row: FleetRow) -> String {
        switch id {
        case .instance: return row.instance
        case .attach:
            switch row.reach {
            case .probe(let target): return target
            case .localPid(let pid): return "pid \(pid)"
            case .unreachable: return "-"
            }
        default:
            guard let value = number(row) else { return "-" }
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
            // A gauge averaged by Prometheus may be fractional; the table counts whole pipelines.
            return CellText.count(Int(value.rounded()))
        }
    }

    /// Whether `a` comes before `b` sorted by this column: numbers by value, text in code
    /// point order; a row with nothing (or NaN) in the column last either way; ties by
    /// instance, so the order never flickers between two reads.
    public func precedes(_ a: FleetRow, _ b: FleetRow, descending: Bool) -> Bool {
        switch id {
        case .instance, .attach:
            let (x, y) = (text(a), text(b))
            if x != y { return descending ? x > y : x < y }
        default:
            let x = number(a).flatMap { $0.isNaN ? nil : $0 }
            let y = number(b).flatMap { $0.isNaN ? nil : $0 }
            switch (x, y) {
            case (nil, nil): break
            case (nil, _): return false
            case (_, nil): return true
            case (let x?, let y?) where x != y: return descending ? x > y : x < y
            default: break
            }
        }
        return a.instance < b.instance
    }
}
