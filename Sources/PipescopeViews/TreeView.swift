import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The pipeline tree: one row per stage, roots first, upstream stages indented below.
///
/// Columns: fold marker and operator (roots also name their subscriber), status glyph
/// and word, demand requested, values delivered. The selected row is reversed.
public enum TreeView {
    static let statusWidth = 12
    static let demandWidth = 7
    static let valuesWidth = 7

    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2, area.width >= 20 else { return }
        let rightWidth = statusWidth + demandWidth + valuesWidth + 2
        let labelWidth = max(8, area.width - rightWidth)
        let header = Format.pad("STAGE", labelWidth) + Format.pad("STATUS", statusWidth)
            + Format.pad("DEMAND", demandWidth, right: true) + Format.pad("VALUES", valuesWidth + 1, right: true)
        buffer.putTruncated(header, x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)

        let rows = state.rows
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        if rows.isEmpty {
            let text = state.connection == .connected
                ? "No pipelines yet. Subscriptions made after Pipescope.start() appear here."
                : "Waiting for the program…"
            buffer.putTruncated(text, x: body.x + 1, y: body.y, maxWidth: body.width - 1, style: theme.dim, glyphs: theme.glyphs)
            return
        }
        let selectedID = state.selectedNode?.id
        let selectedIndex = rows.firstIndex { $0.id == selectedID } ?? 0
        let offset = max(0, selectedIndex - body.height + 1)
        for (line, row) in rows.dropFirst(offset).prefix(body.height).enumerated() {
            guard let node = state.graph[row.id] else { continue }
            let y = body.y + line
            renderRow(node, row: row, theme: theme, y: y, x: body.x, labelWidth: labelWidth, into: &buffer)
            if row.id == selectedID {
                buffer.setStyle(Rect(x: body.x, y: y, width: body.width, height: 1)) { $0.reverse = true }
            }
        }
    }

    private static func renderRow(_ node: NodeSummary, row: TreeRow, theme: Theme, y: Int, x: Int,
                                  labelWidth: Int, into buffer: inout ScreenBuffer) {
        let marker = row.hasChildren ? (row.isCollapsed ? theme.glyphs.folded : theme.glyphs.unfolded) : theme.glyphs.leaf
        let indent = String(repeating: "  ", count: row.depth)
        var cx = x
        cx += buffer.put(indent + marker + " ", x: cx, y: y, maxWidth: labelWidth)
        let nameStyle = node.status.isTerminal ? theme.dim : Style(bold: row.depth == 0)
        cx += buffer.putTruncated(node.operatorName, x: cx, y: y, maxWidth: max(0, x + labelWidth - cx - 1),
                                  style: nameStyle, glyphs: theme.glyphs)
        if node.parent == nil, x + labelWidth - cx > 4 {
            let arrow = theme.glyphs.isUnicode ? " → " : " -> "
            buffer.putTruncated(arrow + node.subscriber, x: cx, y: y, maxWidth: x + labelWidth - cx - 1,
                                style: theme.dim, glyphs: theme.glyphs)
        }
        var rx = x + labelWidth
        let status = theme.glyph(node.status) + " " + node.status.rawValue
        buffer.put(Format.pad(status, statusWidth), x: rx, y: y, style: theme.style(node.status), maxWidth: statusWidth)
        rx += statusWidth
        buffer.put(Format.pad(Format.demand(node.requested, theme: theme), demandWidth, right: true), x: rx, y: y)
        rx += demandWidth
        buffer.put(Format.pad(Format.count(node.values), valuesWidth + 1, right: true), x: rx, y: y)
    }
}
