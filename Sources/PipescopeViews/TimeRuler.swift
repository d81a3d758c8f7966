import Foundation

/// The timeline's time axis: labels at round intervals, far enough apart to read.
/// Live, they count back from now (`-10s … now`); in history and replay they are clock
/// times (`12:01:03`), since "now" is not the moment on screen.
///
/// ```swift
/// TimeRuler.line(end: now, scale: 100_000_000, width: 60, live: true)
/// // "-5s       -4s       -3s       -2s       -1s            now"
/// ```
public enum TimeRuler {
    /// Round intervals, in nanoseconds: 1, 2, 5 × 10ⁿ ms up to seconds, then 10 s, 15 s,
    /// 30 s, and minutes.
    static let intervals: [Int64] = {
        var out: [Int64] = []
        var unit: Int64 = 1_000_000
        while unit < 10_000_000_000 {
            out += [unit, unit * 2, unit * 5]
            unit *= 10
        }
        return out + [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map { $0 * 1_000_000_000 }
    }()

    /// The narrowest round interval whose labels, `scale` nanoseconds a column, are at
    /// least `spacing` columns apart.
    static func interval(scale: Int64, spacing: Int) -> Int64 {
        intervals.first { $0 / max(1, scale) >= Int64(spacing) } ?? intervals.last!
    }

    /// The ruler line, `width` columns wide, for a window ending at `end`.
    /// `cursor`: the column of the cursor's moment, marked `▼` (or `v`), which labels
    /// keep clear of.
    public static func line(end: Int64, scale: Int64, width: Int, live: Bool, cursor: Int? = nil,
                            unicode: Bool = true) -> String {
        guard width > 0 else { return "" }
        let spacing = live ? 8 : 11
        let step = interval(scale: scale, spacing: spacing)
        let window = LaneDrawing.Window(end: end, scale: scale, width: width)
        var cells = [Character](repeating: " ", count: width)
        func put(_ text: String, at column: Int) -> Bool {
            guard column >= 0, column + text.count <= width,
                  cells[column..<column + text.count].allSatisfy({ $0 == " " }),
                  column == 0 || cells[column - 1] == " " else { return false }
            for (i, c) in text.enumerated() { cells[column + i] = c }
            return true
        }
        if let cursor, cursor >= 0, cursor < width { cells[cursor] = unicode ? "▼" : "v" }
        if live { _ = put("now", at: width - 3) }
        // Ticks at multiples of the interval, newest first, while they fit.
        var tick = live ? end - step : (end / step) * step
        while true {
            let column = window.column(of: tick)
            guard column >= 0 else { break }
            let label = live ? relative(end - tick, step: step) : clock(tick, step: step)
            _ = put(label, at: column)
            tick -= step
        }
        return String(cells)
    }

    /// `-500ms`, `-10s`, `-2m`, `-1.5s`.
    static func relative(_ age: Int64, step: Int64) -> String {
        let ms = age / 1_000_000
        if step < 1_000_000_000 {
            if ms < 1000 { return "-\(ms)ms" }
            return ms % 1000 == 0 ? "-\(ms / 1000)s" : String(format: "-%gs", Double(ms) / 1000)
        }
        let s = age / 1_000_000_000
        if step >= 60_000_000_000, s % 60 == 0 { return "-\(s / 60)m" }
        return "-\(s)s"
    }

    /// Local clock time, to the second, or with milliseconds below a second.
    static func clock(_ nanos: Int64, step: Int64) -> String {
        let text = Format.time(nanos)  // 12:01:03.120
        return step < 1_000_000_000 ? String(text.dropFirst(3)) : String(text.prefix(8))
    }
}
