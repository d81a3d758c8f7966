import PipescopeGraph
import PipescopeModel
import TerminalKit

/// Every current warning, the same mistake in the same place once (``LintGroup``),
/// newest first: what happened, how many times, where, and what to do. Each row is shown
/// whole (its heading on at most two lines, its advice wrapped to the end: cut at two
/// lines, mid-sentence, it would leave the fix unread at 80 columns). When the rows do
/// not all fit, they scroll from `firstRow` (↑↓ PgUp PgDn Home End, in the reducer) and
/// the footer says which are shown.
public enum LintsOverlay {
    public static func render(_ state: AppState, theme: Theme, area: Rect, firstRow: Int = 0, into buffer: inout ScreenBuffer) {
        let groups = state.warnings.groups
        let (rows, box) = layout(state, theme: theme, area: area)
        buffer.fill(box, with: .blank)
        let title = groups.count == state.warnings.lints.count
            ? "Warnings (\(state.warnings.lints.count))"
            : "Warnings (\(state.warnings.lints.count) on \(groups.count) \(groups.count == 1 ? "row" : "rows"))"
        buffer.drawBox(box, title: title, style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        guard !groups.isEmpty else {
            buffer.putTruncated(" No lifecycle problems seen.", x: inner.x, y: inner.y, maxWidth: inner.width,
                                style: theme.dim, glyphs: theme.glyphs)
            return
        }
        var y = inner.y
        let warn = Style(foreground: theme.colors ? .yellow : nil, bold: true)
        let first = min(max(0, firstRow), groups.count - 1)
        // Every row is drawn as far as it fits, so no room is left blank while rows
        // remain; a row cut short after the first is not counted as shown, so the next
        // page (PgDn) starts with it whole.
        for row in rows[first...] {
            guard y < inner.maxY - 1 else { break }
            let text = row.heading.enumerated().map { ($0 == 0 ? " " : "   ") + $1 } + row.message.map { "   " + $0 }
            for (i, line) in text.enumerated() where y + i < inner.maxY - 1 {
                buffer.putTruncated(line, x: inner.x, y: y + i, maxWidth: inner.width,
                                    style: i < row.heading.count ? warn : .plain, glyphs: theme.glyphs)
            }
            y += text.count
        }
        let shown = first + shownWhole(rows, from: first, room: inner.height - 1)
        let footer = footer(first: first, shown: shown, of: groups.count, width: inner.width, theme: theme)
        buffer.putTruncated(footer, x: inner.x, y: inner.maxY - 1, maxWidth: inner.width, style: theme.dim, glyphs: theme.glyphs)
    }

    /// How many rows the list shows whole from `firstRow` in `area` (at least one, the
    /// first being drawn as far as it fits when it alone is taller): what PgDn moves by
    /// (the app sends it, ``Message/warningsShown(_:)``). 0 when there is no warning.
    public static func rowsShown(_ state: AppState, theme: Theme, area: Rect, firstRow: Int) -> Int {
        let (rows, box) = layout(state, theme: theme, area: area)
        guard !rows.isEmpty else { return 0 }
        return shownWhole(rows, from: min(max(0, firstRow), rows.count - 1), room: box.inset(by: 1).height - 1)
    }

    /// Each row's heading and advice wrapped to the box's width, and the box: nearly the
    /// whole width on a narrow terminal (the advice is the point), as tall as the rows
    /// need, in the middle of `area`.
    private static func layout(_ state: AppState, theme: Theme, area: Rect)
        -> (rows: [(heading: [String], message: [String])], box: Rect) {
        let width = min(area.width, max(78, area.width * 4 / 5))
        let textWidth = max(1, width - 2 - 3)
        let rows = state.warnings.groups.map { group in
            (heading: DetailView.wrap(theme.text(heading(group, graph: state.cursor.graph)), width: textWidth,
                                      maxLines: 2),
             message: DetailView.wrap(group.newest.message, width: textWidth, maxLines: Int.max))
        }
        let lines = rows.reduce(0) { $0 + $1.heading.count + $1.message.count }
        let height = min(area.height, max(6, lines + 3))
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        return (rows, box)
    }

    /// How many of `rows` from `first` fit whole in `room` lines, the first counted
    /// whatever its height.
    private static func shownWhole(_ rows: [(heading: [String], message: [String])], from first: Int, room: Int) -> Int {
        var used = 0, shown = 0
        for row in rows[first...] {
            let count = row.heading.count + row.message.count
            if used + count > room, shown > 0 { break }
            used += count
            shown += 1
        }
        return shown
    }

    /// The keys, and which rows are shown when they do not all fit: the longest wording
    /// that fits `width` whole (at 80 columns the full one would be cut mid-word while
    /// scrolling, losing "-A <name>", how to turn a lint off).
    static func footer(first: Int, shown: Int, of count: Int, width: Int, theme: Theme) -> String {
        let close = " w or Esc closes; -A <name> turns a lint off"
        guard first > 0 || shown < count else { return close }
        let rows = " rows \(first + 1)-\(shown)/\(count)"
        let arrows = theme.text("↑↓"), dot = theme.text("·")
        let wordings = [
            rows + ", \(arrows) PgUp PgDn scroll;" + close,
            rows + " \(arrows) PgUp PgDn \(dot) w/Esc closes \(dot) -A <name> turns a lint off",
            rows + " \(arrows) PgUp PgDn \(dot) w/Esc closes",
        ]
        return wordings.first { $0.count <= width } ?? wordings[wordings.count - 1]
    }

    /// "⚠ unretained-cancellable ×7 at story: forgotten request → Sink (DemoProgram.swift:105),
    /// newest #395"; one alone: "⚠ demand-violation at #18 IgnoresDemand in story: … →
    /// DemandCounter (LifecycleStories.swift:34)". The place in parentheses is where the
    /// program made the pipeline, when it is known.
    static func heading(_ group: LintGroup, graph: Graph) -> String {
        let count = group.count > 1 ? " ×\(group.count)" : ""
        let node = group.newest.node
        let stage = graph[node]
        let root = graph[group.root]
        var place = (root?.operatorName ?? "?") + " → " + (root?.subscriber ?? "?")
        if node != group.root { place = "\(stage?.operatorName ?? "?") in " + place }
        if let made = graph.location(of: node)?.location.short { place += " (\(made))" }
        let which = group.count > 1 ? ", newest #\(node)" : ""
        return "⚠ \(group.kind.rawValue)\(count) at " + (group.count > 1 ? "" : "#\(node) ") + place + which
    }
}
