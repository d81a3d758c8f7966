import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The timeline screen (`T`): the timeline takes the width, for reading a long recording.
/// The tree's rows sit on the left as narrow names (the selected one reversed), their
/// lanes (``TimelineView``) across the rest under the time axis, and the event log below,
/// following the cursor.
///
/// ```
/// ┌ Timeline 100 ms/col  + - zoom  = fit ──────────────────────────────────┐
/// │STAGE               │ -5s       -4s       -3s       -2s       -1s    now│
/// │▾ ● Filter → Sink   │━━━•━━━━━•━━━━━•━━━━━•━━━━━•━━━━━•━━━━━•━━━━━•━━━━━│
/// ```
public enum TimelineScreen {
    struct Layout {
        /// The box around names and lanes.
        var box: Rect
        var names: Rect
        var lanes: Rect
        var events: Rect
    }

    /// The widest the names get: the lanes are what this screen is for.
    static let namesWidth = 24

    static func layout(_ body: Rect) -> Layout {
        let (top, bottom) = body.splitVertically(at: max(3, body.height * 2 / 3))
        let inner = top.inset(by: 1)
        let namesWidth = min(Self.namesWidth, max(8, inner.width / 4))
        let names = Rect(x: inner.x, y: inner.y, width: namesWidth, height: inner.height)
        let lanes = Rect(x: inner.x + namesWidth + 1, y: inner.y, width: max(0, inner.width - namesWidth - 1),
                         height: inner.height)
        return Layout(box: top, names: names, lanes: lanes, events: bottom)
    }

    static func render(_ state: AppState, layout: Layout, theme: Theme, into buffer: inout ScreenBuffer) {
        let focusedLanes = state.focus != .events
        func border(_ focused: Bool) -> Style {
            focused ? Style(foreground: theme.colors ? .yellow : nil, bold: true) : theme.border
        }
        buffer.drawBox(layout.box, title: TimelineView.title(state, theme: theme) + (focusedLanes ? " *" : ""),
                       style: border(focusedLanes), titleStyle: theme.title, glyphs: theme.glyphs)
        renderNames(state, area: layout.names, theme: theme, into: &buffer)
        for y in layout.lanes.y..<layout.lanes.maxY {
            buffer.put(theme.glyphs.isUnicode ? "│" : "|", x: layout.lanes.x - 1, y: y, style: theme.border, maxWidth: 1)
        }
        TimelineView.render(state, theme: theme, area: layout.lanes, into: &buffer)
        buffer.drawBox(layout.events, title: EventLogView.title(state) + (focusedLanes ? "" : " *"), style: border(!focusedLanes),
                       titleStyle: theme.title, glyphs: theme.glyphs)
        EventLogView.render(state, theme: theme, area: layout.events.inset(by: 1), into: &buffer)
    }

    /// The rows' names, aligned with the lanes: indented by depth, with the status glyph.
    static func renderNames(_ state: AppState, area: Rect, theme: Theme, into buffer: inout ScreenBuffer) {
        guard area.height >= 2 else { return }
        buffer.putTruncated("STAGE", x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)
        let (_, rows) = TreeView.visibleRows(state, height: area.height - 1)
        let graph = state.cursor.graph
        for (line, row) in rows.enumerated() {
            let y = area.y + 1 + line
            let indent = String(repeating: " ", count: min(row.depth, 4))
            let text: String
            var style = Style.plain
            if let owner = row.ownerHeader {
                text = indent + "⌂ " + owner.name
                style = theme.dim
            } else if let group = row.group, let newest = graph[group.newest] {
                text = indent + theme.glyph(newest.status, of: group.members.compactMap { graph[$0] }) + " "
                    + newest.operatorName + " ×\(group.members.count)"
                style = theme.style(newest.status)
            } else if let node = graph[row.id] {
                text = indent + (row.isReference ? "↪ " : theme.glyph(of: node) + " ") + node.operatorName
                style = row.isReference ? theme.dim : theme.style(node.status)
            } else {
                continue
            }
            buffer.putTruncated(theme.text(text), x: area.x, y: y, maxWidth: area.width, style: style,
                                glyphs: theme.glyphs)
            if row.selection != nil, row.selection == state.tree.current {
                buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { $0.reverse = true }
            }
        }
    }
}
