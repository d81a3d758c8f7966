import Foundation
import PipescopeModel
import TerminalKit

/// `pipescope top --prometheus`' screen: a title line (Prometheus' address, the programs
/// counted, the sort), the table of programs (one row per
/// `instance`, ``FleetColumn/all``), a notice above the keys when a key could not do what
/// it asked (an Enter on a row top cannot reach says why and what to do), and the keys
/// with how long ago Prometheus was last read.
///
/// While there are no rows, the table's place says why: Prometheus unreachable, a bad
/// answer, or no pipescope series yet (``FleetState/problem``), wrapped to the width.
///
/// ```swift
/// var buffer = ScreenBuffer(width: 80, height: 24)
/// FleetView.render(state, theme: .plainUnicode, now: clock(), into: &buffer)
/// ```
public enum FleetView {
    /// Rows of the table the screen shows at `height` lines: all but the title, the header,
    /// the notice's lines and the keys (the loop tells the state, for PgUp and PgDn).
    public static func pageRows(height: Int) -> Int { max(1, height - 6) }

    public static func render(_ state: FleetState, theme: Theme, now: Int64, into buffer: inout ScreenBuffer) {
        let width = buffer.width, height = buffer.height
        guard width >= 20, height >= 5 else {
            buffer.putTruncated("pipescope top: too small", x: 0, y: 0, maxWidth: width, glyphs: theme.glyphs)
            return
        }
        renderTitle(state, theme: theme, now: now, width: width, into: &buffer)
        // The notice takes up to three lines above the keys, wrapped: a reason and its advice are read whole.
        let notice = state.notice.map { DetailView.wrap(theme.text($0), width: width - 1, maxLines: 3) } ?? []
        let keysY = height - 1
        for (i, line) in notice.enumerated() {
            buffer.putTruncated(" " + line, x: 0, y: keysY - notice.count + i, maxWidth: width,
                                style: Style(foreground: theme.colors ? .yellow : nil, bold: true), glyphs: theme.glyphs)
        }
        let body = Rect(x: 0, y: 1, width: width, height: keysY - notice.count - 1)
        if let problem = state.problem ?? (state.readAt == nil ? "reading \(state.url)…" : nil) {
            renderProblem(problem, theme: theme, area: body, into: &buffer)
        } else {
            renderTable(state, theme: theme, area: body, into: &buffer)
        }
        let keys = theme.text(FleetKeyMap.hints.joined(separator: "  "))
        let written = buffer.putTruncated(" " + keys, x: 0, y: keysY, maxWidth: width, style: theme.dim, glyphs: theme.glyphs)
        if let age = age(state, now: now), written + age.count + 3 <= width {
            buffer.put(age, x: width - age.count - 1, y: keysY, style: theme.dim)
        }
    }

    static func renderTitle(_ state: FleetState, theme: Theme, now: Int64, width: Int, into buffer: inout ScreenBuffer) {
        let bar = Style(reverse: true)
        buffer.fill(Rect(x: 0, y: 0, width: width, height: 1), with: Cell(" ", style: bar))
        let arrow = theme.glyphs.isUnicode ? "▸" : ">"
        let address = state.url.hasPrefix("http://") ? String(state.url.dropFirst(7)) : state.url
        var x = buffer.put(" pipescope \(arrow) top \(address)  ", x: 0, y: 0, style: Style(bold: true, reverse: true),
                           maxWidth: width)
        let count = state.rows.count
        if state.problem == nil, state.readAt != nil {
            x += buffer.put("\(count) program\(count == 1 ? "" : "s")", x: x, y: 0, style: bar, maxWidth: width - x)
        }
        // As the pipelines table's title names its sort: shown when it fits whole.
        let sorted = "sorted by \(state.sort.title.lowercased()) "
        if x + sorted.count + 2 <= width {
            buffer.put(sorted, x: width - sorted.count, y: 0, style: bar, maxWidth: sorted.count)
        }
    }

    /// How long ago the last read came, for the keys line's right end: "read 3s ago".
    static func age(_ state: FleetState, now: Int64) -> String? {
        guard let readAt = state.readAt else { return nil }
        let seconds = max(0, now - readAt) / 1_000_000_000
        return seconds < 1 ? "read just now" : "read \(seconds)s ago"
    }

    /// Each column's x and width at `width`: the numbers as declared; INSTANCE as wide as
    /// its longest (at least its title, at most what leaves ATTACH 12), ATTACH the rest.
    static func layout(_ rows: [FleetRow], width: Int) -> [(FleetColumn, x: Int, width: Int)] {
        let numbers = FleetColumn.all.compactMap { $0.id == .instance ? nil : $0.width }.reduce(0, +)
        let rest = max(0, width - numbers)
        let longest = rows.map { $0.instance.count }.max() ?? 0
        let instance = max(FleetColumn.instance.title.count + 2, min(longest + 1, rest - 12, FleetColumn.instance.width ?? rest))
        var x = 0
        return FleetColumn.all.map { column in
            let w = column.id == .instance ? instance : column.width ?? max(12, rest - instance)
            defer { x += w }
            return (column, x, w)
        }
    }

    static func renderTable(_ state: FleetState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2 else { return }
        let columns = layout(state.rows, width: area.width)
        let arrow = theme.glyphs.isUnicode ? (state.descending ? "▼" : "▲") : (state.descending ? "v" : "^")
        var header = ""
        for (column, _, w) in columns {
            // A number's title ends over its numbers, the sort mark in the gap after it.
            let mark = column == state.sort ? arrow : column.rightAligned ? " " : ""
            header += column.rightAligned ? Format.pad(column.title, w - 1, right: true) + mark
                : Format.pad(column.title + mark, w)
        }
        while header.hasSuffix(" ") { header.removeLast() }
        buffer.putTruncated(header, x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)
        let rows = state.rows.dropFirst(state.offset).prefix(area.height - 1)
        for (line, row) in rows.enumerated() {
            let y = area.y + 1 + line
            for (column, x, w) in columns where x < area.width {
                let text = column == .attach ? Self.shortened(column.text(row), to: w, ellipsis: theme.glyphs.ellipsis) : column.text(row)
                let cell = column.rightAligned ? Format.pad(text, w - 1, right: true) : text
                let style = column.id == .waiting && (row.waiting ?? 0) >= 1 && theme.colors
                    ? Style(foreground: .yellow, bold: true) : Style.plain
                // The last column needs no gap after it.
                let room = column == FleetColumn.all.last ? w : w - 1
                buffer.putTruncated(cell, x: area.x + x, y: y, maxWidth: min(room, area.width - x), style: style,
                                    glyphs: theme.glyphs)
            }
            if row.instance == state.selected {
                buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { $0.reverse = true }
            }
        }
    }

    /// A probe's address cut in its middle, so its port stays: `tcp://shop-2.in…:9465`.
    static func shortened(_ text: String, to width: Int, ellipsis: String) -> String {
        guard text.count > width, let colon = text.lastIndex(of: ":"), text.distance(from: colon, to: text.endIndex) < width / 2
        else { return text }
        let port = text[colon...]
        return text.prefix(width - port.count - ellipsis.count) + ellipsis + port
    }

    static func renderProblem(_ problem: String, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let lines = DetailView.wrap(theme.text(problem), width: area.width - 4, maxLines: max(1, area.height - 2))
        for (i, line) in lines.enumerated() {
            buffer.putTruncated(line, x: area.x + 2, y: area.y + 1 + i, maxWidth: area.width - 4, glyphs: theme.glyphs)
        }
    }
}
