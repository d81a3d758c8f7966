import Foundation
import PipescopeGraph
import PipescopeModel

/// Short human forms of numbers, demands and times.
enum Format {
    static func demand(_ d: Demand, theme: Theme) -> String {
        switch d {
        case .unlimited: return theme.unlimited
        case .count(let n): return count(n)
        }
    }

    /// 999, 12.3k, 4.5M: the table's ``CellText/count(_:)``, so counts read alike everywhere.
    static func count(_ n: Int) -> String { CellText.count(n) }


    /// A span of the timeline (its scale, how long ago a lane ended), in three significant
    /// figures and no more: 250 ms, 2 s, 1.5 min. Measured durations are ``CellText/duration(_:)``.
    static func span(_ nanos: Int64) -> String {
        let ms = Double(nanos) / 1e6
        if ms < 1000 { return ms < 10 ? String(format: "%.1f ms", ms) : String(format: "%.0f ms", ms) }
        let s = ms / 1000
        return s < 60 ? String(format: "%.3g s", s) : String(format: "%.3g min", s / 60)
    }

    static func rate(_ perSecond: Double) -> String {
        perSecond < 10_000 ? String(format: "%.0f ev/s", perSecond) : "\(count(Int(perSecond))) ev/s"
    }

    /// Local wall-clock time with milliseconds: 12:01:03.120.
    static func time(_ nanos: Int64) -> String {
        var seconds = time_t(nanos / 1_000_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let ms = Int(nanos / 1_000_000 % 1000)
        return String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, ms)
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        guard n < width else { return s }
        let fill = String(repeating: " ", count: width - n)
        return right ? fill + s : s + fill
    }
}
