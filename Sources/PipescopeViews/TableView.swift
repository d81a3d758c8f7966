import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The pipelines table, the first screen: one row per pipeline (a root stage and
/// everything upstream of it), like `top`'s processes or tokio-console's tasks.
///
/// Columns, left to right: `⚠N` warnings on its stages, `#id` (the root stage),
/// PIPELINE (the name given with `pipescopeName`, or the operators in code order ending
/// with the subscriber, `…` in the middle or the front when it does not fit), LOCATION (where the
/// program made it), STATUS (the root's), STAGES, RATE (events per second over the last
/// 3 seconds) with a sparkline of the last minute (5 s per cell), VALUES delivered to
/// the subscriber, AGE, and LAST (time since its newest event). Narrow terminals drop
/// columns in ``TableColumns``' order. The sorted column's header carries ▲ or ▼ (ASCII
/// `^` `v`). The selected row is reversed.
public enum TableView {
    static let sparkUnicode: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    static let sparkASCII: [Character] = ["_", ".", ",", "-", "=", "+", "*", "#"]

    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2, area.width >= 20 else { return }
        let table = state.table
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let start = min(table.offset, max(0, table.rows.count - body.height))
        let visible = table.rows.dropFirst(max(0, start)).prefix(body.height)
        let columns = TableColumns(width: area.width, locationWidth: table.locationWidth)
        renderHeader(table, columns: columns, theme: theme, x: area.x, y: area.y, width: area.width, into: &buffer)
        if table.rows.isEmpty {
            EmptyPane.render(state, theme: theme, area: body, into: &buffer)
            return
        }
        let now = state.timelineEnd
        for (line, row) in visible.enumerated() {
            let y = body.y + line
            renderRow(row, state: state, columns: columns, now: now, theme: theme, x: body.x, y: y, into: &buffer)
            if row.id == table.selected {
                buffer.setStyle(Rect(x: body.x, y: y, width: body.width, height: 1)) { $0.reverse = true }
            }
        }
    }

    /// The header line: each shown column's word, the sorted one marked.
    static func renderHeader(_ table: AppState.Table, columns c: TableColumns, theme: Theme, x: Int, y: Int, width: Int,
                             into buffer: inout ScreenBuffer) {
        let arrow = theme.glyphs.isUnicode ? (table.descending ? "▼" : "▲") : (table.descending ? "v" : "^")
        func title(_ column: TableColumn) -> String {
            let word = column == .warnings ? theme.text("⚠") : column.title
            return column == table.sort ? word + arrow : word
        }
        var text = Format.pad(title(.warnings), c.warnings) + Format.pad(title(.id), c.id, right: true) + " "
            + Format.pad(title(.name), c.name - 1)
        if c.has(.location) { text += Format.pad(title(.location), c.location) }
        text += Format.pad(title(.status), c.status)
        if c.has(.stages) { text += Format.pad(title(.stages), c.stages - 1, right: true) + " " }
        text += Format.pad(title(.rate), c.rate - 1, right: true) + " "
        if c.has(.sparkline) { text += Format.pad("LAST MINUTE", c.sparkline) }
        if c.has(.values) { text += Format.pad(title(.values), c.values - 1, right: true) + " " }
        if c.has(.age) { text += Format.pad(title(.age), c.age - 1, right: true) + " " }
        if c.has(.lastEvent) { text += Format.pad(title(.lastEvent), c.lastEvent - 1, right: true) }
        buffer.putTruncated(text, x: x, y: y, maxWidth: width, style: theme.dim, glyphs: theme.glyphs)
    }

    static func renderRow(_ row: PipelineRow, state: AppState, columns c: TableColumns, now: Int64, theme: Theme,
                          x: Int, y: Int, into buffer: inout ScreenBuffer) {
        var cx = x
        if row.warnings > 0 {
            buffer.put(theme.text("⚠") + Format.count(row.warnings), x: cx, y: y,
                       style: Style(foreground: theme.colors ? .yellow : nil, bold: true), maxWidth: c.warnings - 1)
        }
        cx += c.warnings
        buffer.put(Format.pad("#\(row.id)", c.id, right: true), x: cx, y: y, style: theme.dim, maxWidth: c.id)
        cx += c.id + 1
        buffer.putTruncated(theme.text(shortened(row.name, width: c.name - 2, theme: theme)), x: cx, y: y,
                            maxWidth: c.name - 2, style: row.name.named ? Style(bold: true) : .plain, glyphs: theme.glyphs)
        cx += c.name - 1
        if c.has(.location) {
            buffer.putTruncated(Self.fit(row.location, width: c.location - 1, theme: theme), x: cx, y: y,
                                maxWidth: c.location - 1, style: theme.dim, glyphs: theme.glyphs)
            cx += c.location
        }
        buffer.put(theme.glyph(row.status) + " " + row.status.rawValue, x: cx, y: y, style: theme.style(row.status),
                   maxWidth: c.status - 1)
        cx += c.status
        if c.has(.stages) {
            buffer.put(Format.pad(String(row.stages), c.stages - 1, right: true), x: cx, y: y)
            cx += c.stages
        }
        buffer.put(Format.pad(rate(row.rate), c.rate - 1, right: true), x: cx, y: y,
                   style: row.rate > 0 ? Style(bold: true) : theme.dim)
        cx += c.rate
        if c.has(.sparkline) {
            let counts = state.table.activity.counts(of: row.id, at: now)
            buffer.put(sparkline(counts, width: TableColumns.sparkWidth, theme: theme), x: cx, y: y,
                       style: Style(foreground: theme.colors ? .cyan : nil))
            cx += c.sparkline
        }
        if c.has(.values) {
            buffer.put(Format.pad(Format.count(row.values), c.values - 1, right: true), x: cx, y: y)
            cx += c.values
        }
        if c.has(.age) {
            buffer.put(Format.pad(age(now - row.createdNanos), c.age - 1, right: true), x: cx, y: y, style: theme.dim)
            cx += c.age
        }
        if c.has(.lastEvent) {
            let since = row.lastEventNanos > 0 ? age(now - row.lastEventNanos) : "-"
            buffer.put(Format.pad(since, c.lastEvent - 1, right: true), x: cx, y: y, style: theme.dim)
        }
    }

    /// The name in `width` columns: whole if it fits, else its source, `…`, and as many
    /// of its last operators as fit (`PassthroughSubject → … → Filter → Sink`); narrower,
    /// only its last operators (`… → Filter → Sink`).
    static func shortened(_ name: PipelineName, width: Int, theme: Theme) -> String {
        let whole = name.text
        let fits = { (s: String) in theme.text(s).count <= width }
        guard !fits(whole), name.parts.count > 2 else { return whole }
        for kept in stride(from: name.parts.count - 2, through: 1, by: -1) {
            let text = ([name.parts[0], "…"] + name.parts.suffix(kept)).joined(separator: " → ")
            if fits(text) { return text }
        }
        for kept in stride(from: name.parts.count - 1, through: 1, by: -1) {
            let text = (["…"] + name.parts.suffix(kept)).joined(separator: " → ")
            if fits(text) { return text }
        }
        return whole
    }

    /// 0, 0.3/s, 12/s, 4.5k/s.
    static func rate(_ perSecond: Double) -> String {
        if perSecond == 0 { return "0" }
        if perSecond < 10 { return String(format: "%.1f/s", perSecond) }
        return perSecond < 10_000 ? String(format: "%.0f/s", perSecond) : Format.count(Int(perSecond)) + "/s"
    }

    /// 42s, 12m, 3h, 2d: the largest whole unit.
    static func age(_ nanos: Int64) -> String {
        let s = max(0, nanos / 1_000_000_000)
        switch s {
        case ..<60: return "\(s)s"
        case ..<3600: return "\(s / 60)m"
        case ..<86_400: return "\(s / 3600)h"
        default: return "\(s / 86_400)d"
        }
    }

    /// `counts` (oldest first) in `width` cells, each the sum of an equal slice, scaled to
    /// the busiest cell: eight heights (`▁`…`█`, ASCII `_ . , - = + * #`), blank for none.
    static func sparkline(_ counts: [UInt32], width: Int, theme: Theme) -> String {
        guard width > 0, !counts.isEmpty else { return "" }
        let levels = theme.glyphs.isUnicode ? sparkUnicode : sparkASCII
        var cells = [UInt64](repeating: 0, count: width)
        for (i, n) in counts.enumerated() { cells[i * width / counts.count] += UInt64(n) }
        let top = cells.max() ?? 0
        guard top > 0 else { return String(repeating: " ", count: width) }
        return String(cells.map { n -> Character in
            n == 0 ? " " : levels[min(levels.count - 1, Int((n * UInt64(levels.count) - 1) / top))]
        })
    }

    /// A location cut to `width`: `File.swift:88` loses the start of its file name, never
    /// its line (`…cleStories.swift:31`); anything else loses its end.
    public static func fit(_ location: String, width: Int, theme: Theme) -> String {
        guard location.terminalWidth > width, width > 1 else { return location }
        let ellipsis = theme.glyphs.ellipsis
        let keep = max(0, width - ellipsis.terminalWidth)
        let hasLine = location.range(of: #":[0-9]+$"#, options: .regularExpression) != nil
        return hasLine ? ellipsis + String(location.suffix(keep)) : location
    }
}
