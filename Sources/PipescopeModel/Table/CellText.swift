import Foundation

/// How the table writes a count, a rate and an age in a cell, short enough for its
/// column: what ``TableColumn/text`` returns and the views use for counts elsewhere.
///
/// ```swift
/// CellText.count(12_345)           // "12.3k"
/// CellText.rate(0.3)               // "0.3/s"
/// CellText.age(90_000_000_000)     // "1m"
/// ```
public enum CellText {
    /// 12, 12.3k, 4.5M.
    public static func count(_ n: Int) -> String {
        switch n {
        case ..<10_000: return String(n)
        case ..<1_000_000: return String(format: "%.1fk", Double(n) / 1e3)
        default: return String(format: "%.1fM", Double(n) / 1e6)
        }
    }

    /// 0, 0.3/s, 12/s, 45.0k/s.
    public static func rate(_ perSecond: Double) -> String {
        if perSecond == 0 { return "0" }
        if perSecond < 10 { return String(format: "%.1f/s", perSecond) }
        return perSecond < 10_000 ? String(format: "%.0f/s", perSecond) : count(Int(perSecond)) + "/s"
    }

    /// A measured duration, as every screen and chain says one: 850 ns, 4.2 µs, 12 µs,
    /// 2.1 ms, 35 ms, 1.3 s, 2.5 min.
    public static func duration(_ nanos: Int64) -> String {
        let n = Double(max(0, nanos))
        // Each unit is chosen by the figure as it will be printed, so 999,999 ns is
        // "1.0 ms", not "1000 µs".
        if n < 999.5 { return "\(Int(n.rounded())) ns" }
        if n < 9_950 { return String(format: "%.1f µs", n / 1e3) }
        if n < 999_500 { return String(format: "%.0f µs", n / 1e3) }
        if n < 9_950_000 { return String(format: "%.1f ms", n / 1e6) }
        if n < 999_500_000 { return String(format: "%.0f ms", n / 1e6) }
        if n < 59.95e9 { return String(format: "%.1f s", n / 1e9) }
        return String(format: "%.1f min", n / 60e9)
    }

    /// How long after an age of `nanos` its ``age(_:)`` text next changes (at the next
    /// whole unit: second, minute, hour or day).
    static func ageChange(after nanos: Int64) -> Int64 {
        let s = max(0, nanos / 1_000_000_000)
        let unit: Int64 = s < 60 ? 1 : s < 3600 ? 60 : s < 86_400 ? 3600 : 86_400
        return (s / unit + 1) * unit * 1_000_000_000 - max(0, nanos)
    }

    /// How long ago, in the largest whole unit: 42s, 12m, 3h, 2d.
    public static func age(_ nanos: Int64) -> String {
        let s = max(0, nanos / 1_000_000_000)
        switch s {
        case ..<60: return "\(s)s"
        case ..<3600: return "\(s / 60)m"
        case ..<86_400: return "\(s / 3600)h"
        default: return "\(s / 86_400)d"
        }
    }
}
