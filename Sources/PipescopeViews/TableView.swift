import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The pipelines table, the first screen: one row per pipeline (a root stage and
/// everything upstream of it), like `top`'s processes or tokio-console's tasks.
///
/// Columns, left to right: `⚠N` warnings on its stages, `#id` (the root stage),
/// PIPELINE (the name given with `pipescopeName`, or the operators in code order ending
/// with the subscriber, `…` in the middle when it does not fit: ``shortened(_:width:theme:)``;
/// it takes the width the other columns leave), LOCATION (where the
/// program made it), STATUS (the root's), STAGES, RATE (events per second over the last
/// 3 seconds) with a sparkline of the last minute (5 s per cell), VALUES delivered to
/// the subscriber, AGE, and LAST (time since its newest event). Narrow terminals drop
/// columns in ``TableColumns``' order. The sorted column's header carries ▲ or ▼ (ASCII
/// `^` `v`). The selected row is reversed.
///
/// Pipelines from one place share a folded row (``PlaceFolds``): its ID column says how
/// many (`×215`, bold), its name starts with `▸` (closed) or `▾` (open, ASCII `+` `-`), its
/// sparkline is its pipelines' together, and while it is open its pipelines follow it,
/// each an ordinary row with its name indented.
///
/// The columns, their titles, widths, alignment and cell texts are
/// ``TableColumn/allCases``; this view only adds how each looks (``cell(_:of:text:width:state:now:theme:)``).
public enum TableView {
    static let sparkUnicode: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    static let sparkASCII: [Character] = ["_", ".", ",", "-", "=", "+", "*", "#"]

    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2, area.width >= 20 else { return }
        let table = state.table
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let start = min(table.offset, max(0, table.rows.count - body.height))
        let visible = table.rows.dropFirst(max(0, start)).prefix(body.height)
        let columns = TableColumns(width: area.width, locationWidth: table.locationWidth, timed: table.timed, sorted: table.sort)
        renderHeader(table, columns: columns, theme: theme, x: area.x, y: area.y, width: area.width, into: &buffer)
        if table.rows.isEmpty {
            EmptyPane.render(state, theme: theme, area: body, into: &buffer)
            return
        }
        let now = state.timelineEnd
        for (line, row) in visible.enumerated() {
            let y = body.y + line
            renderRow(row, state: state, columns: columns, now: now, theme: theme, x: body.x, y: y, into: &buffer)
            if row.rowID == table.selection {
                buffer.setStyle(Rect(x: body.x, y: y, width: body.width, height: 1)) { $0.reverse = true }
            }
        }
    }

    /// The header line: each shown column's title, padded to its width (a right-aligned
    /// one to its width less the gap), the sorted one marked.
    static func renderHeader(_ table: AppState.Table, columns: TableColumns, theme: Theme, x: Int, y: Int, width: Int,
                             into buffer: inout ScreenBuffer) {
        let arrow = theme.glyphs.isUnicode ? (table.descending ? "▼" : "▲") : (table.descending ? "v" : "^")
        var text = ""
        for placed in columns.shown {
            let column = placed.column
            let title = theme.text(column.title) + (column == table.sort ? arrow : "")
            switch column.alignment {
            case .left: text += Format.pad(title, placed.width)
            case .right: text += Format.pad(title, placed.width - 1, right: true) + " "
            }
        }
        // The line ends at its last title: no gap after it.
        if text.hasSuffix(" ") { text.removeLast() }
        buffer.putTruncated(text, x: x, y: y, maxWidth: width, style: theme.dim, glyphs: theme.glyphs)
    }

    /// One row: each shown column's cell, its text from the column (``TableColumn/text``)
    /// in the width less the gap, drawn as ``cell(_:of:text:width:state:now:theme:)`` says.
    static func renderRow(_ row: PipelineRow, state: AppState, columns: TableColumns, now: Int64, theme: Theme,
                          x: Int, y: Int, into buffer: inout ScreenBuffer) {
        for placed in columns.shown {
            let width = placed.width - 1
            let look = cell(placed.column.id, of: row, text: placed.column.text(row, now), width: width, state: state,
                            now: now, theme: theme)
            guard !look.text.isEmpty else { continue }
            let text = placed.column.alignment == .right ? Format.pad(look.text, width, right: true) : look.text
            if look.ellipsis {
                buffer.putTruncated(text, x: x + placed.x, y: y, maxWidth: width, style: look.style, glyphs: theme.glyphs)
            } else {
                buffer.put(text, x: x + placed.x, y: y, style: look.style, maxWidth: width)
            }
        }
    }

    /// How a column's cell looks: the styling the view adds to the column's text. Names
    /// are shortened and locations fitted (cut with an ellipsis when still too long);
    /// the sparkline is drawn from the table's activity.
    static func cell(_ id: TableColumn.ID, of row: PipelineRow, text: String, width: Int, state: AppState, now: Int64,
                     theme: Theme) -> (text: String, style: Style, ellipsis: Bool) {
        switch id {
        case .warnings: return (theme.text(text), Style(foreground: theme.colors ? .yellow : nil, bold: true), false)
        case .id: return row.fold != nil ? (theme.text(text), Style(bold: true), false) : (text, theme.dim, false)
        case .name:
            let lead = row.fold != nil
                ? (state.table.isOpen(row) ? theme.glyphs.unfolded : theme.glyphs.folded) + " "
                : row.isMember ? "  " : ""
            let room = max(0, width - lead.terminalWidth)
            return (lead + theme.text(shortened(row.name, width: room, theme: theme)),
                    row.name.named ? Style(bold: true) : .plain, true)
        case .location: return (fit(text, width: width, theme: theme), theme.dim, true)
        case .status:
            // One pipeline's root says who cancelled it, as its tree does; a fold's worst status is many stages'.
            let root = row.fold == nil ? state.cursor.graph[row.id] : nil
            return ((root.map(theme.glyph(of:)) ?? theme.glyph(row.status)) + " " + text, theme.style(row.status), false)
        case .wait: return (theme.text(text), Style(foreground: theme.colors ? .yellow : nil), true)
        case .stages, .values: return (text, .plain, false)
        case .time: return (theme.text(text), .plain, true)
        case .rate: return (text, row.rate > 0 ? Style(bold: true) : theme.dim, false)
        case .lastMinute:
            let counts = activity(of: row, in: state.table, at: now)
            return (sparkline(counts, width: width, theme: theme), Style(foreground: theme.colors ? .cyan : nil), false)
        case .age, .lastEvent: return (text, theme.dim, false)
        }
    }

    /// The name in `width` columns, cut in the middle so that it keeps what names it: whole
    /// if it fits, else its source, `…`, and as many of its last operators as fit, the
    /// subscriber at least (`PassthroughSubject → … → Filter → Sink`, `Just → … → Sink`);
    /// narrower, a pipeline named after the function that built it keeps that function
    /// (`DemoProgram.startUpload …`), and otherwise the source's own name is cut, never the
    /// subscriber's (`PassthroughSu… → … → Sink`). Only when even that does not fit is the
    /// end lost.
    static func shortened(_ name: PipelineName, width: Int, theme: Theme) -> String {
        let whole = name.text
        let fits = { (s: String) in theme.text(s).terminalWidth <= width }
        guard !fits(whole), name.parts.count > 1 else { return whole }
        let parts = name.parts
        if parts.count > 2 {
            for kept in stride(from: parts.count - 2, through: 1, by: -1) {
                let text = ([parts[0], "…"] + parts.suffix(kept)).joined(separator: " → ")
                if fits(text) { return text }
            }
        }
        // The function that built it tells pipelines apart better than their sink (most
        // end in `Sink`): `DemoProgram.startUpload …`.
        if name.built, fits(parts[0] + " …") { return parts[0] + " …" }
        let tail = " → " + (parts.count > 2 ? ["…", name.sink] : [name.sink]).joined(separator: " → ")
        let room = width - theme.text(tail).terminalWidth - theme.text("…").terminalWidth
        guard room >= 3 else { return whole }
        return String(parts[0].prefix(room)) + "…" + tail
    }

    /// The last minute's events of `row`'s pipeline, or summed over a folded row's.
    static func activity(of row: PipelineRow, in table: AppState.Table, at now: Int64) -> [UInt32] {
        guard let fold = row.fold else { return table.shownActivity.counts(of: row.id, at: now) }
        var sum: [UInt32] = []
        for member in fold.members {
            let counts = table.shownActivity.counts(of: member, at: now)
            if sum.isEmpty { sum = counts } else { for i in sum.indices where i < counts.count { sum[i] &+= counts[i] } }
        }
        return sum
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
