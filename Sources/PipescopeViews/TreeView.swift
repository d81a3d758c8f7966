import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The pipeline tree: one row per stage, roots first, upstream stages indented below;
/// ended siblings alike share one row (`▸ Future ×18`, see ``StageGroup``).
///
/// Columns: fold marker and operator (roots also name their subscriber), status glyph
/// and word, demand requested, demand outstanding, values delivered, and where the
/// stage was made (its own location, or dimmed, its pipeline's), when any stage on
/// screen has one and the pane is wide enough (``TreeColumns``). Stages that share
/// one subscription object (Map and Filter pass their upstream's through) are marked
/// `≡N`, N being the stage that owns it. The stage that holds its pipeline's wait
/// (``Waits``) is marked `‖` (ASCII `||`) and, where the label has room, the wait in
/// words (`‖ waits 41s`, `‖ held 12s`, `‖ no sub 3s`). The selected row is reversed.
public enum TreeView {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2, area.width >= 20 else { return }
        let rows = state.tree.rows
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let (_, visible) = visibleRows(state, height: body.height)
        let graph = state.cursor.graph
        let locations = visible.map { $0.ownerHeader == nil && $0.group?.id.key.isOwner != true
            ? graph.location(of: $0.group?.newest ?? $0.id) : nil }
        let columns = TreeColumns(width: area.width,
                                  locationWidth: locations.map { $0?.location.short.terminalWidth ?? 0 }.max() ?? 0,
                                  timed: visible.contains { (graph[$0.id]?.times?.own.count ?? 0) > 0 })
        buffer.putTruncated(columns.header, x: area.x, y: area.y, maxWidth: area.width, style: theme.dim,
                            glyphs: theme.glyphs)

        if rows.isEmpty {
            EmptyPane.render(state, theme: theme, area: body, into: &buffer)
            return
        }
        let selected = state.tree.current
        for (line, row) in visible.enumerated() {
            guard let node = graph[row.id] else { continue }
            let y = body.y + line
            if columns.location > 0, let placed = locations[line] {
                renderLocation(placed, columns: columns, theme: theme, y: y, x: body.x, into: &buffer)
            }
            if row.isReference {
                renderReference(node, row: row, columns: columns, theme: theme, y: y, x: body.x, into: &buffer)
                continue
            }
            if let group = row.group, group.id.key.isOwner {
                renderOwners(group, row: row, state: state, theme: theme, y: y, x: body.x, width: body.width, into: &buffer)
            } else if let group = row.group {
                renderGroup(group, row: row, state: state, columns: columns, theme: theme, y: y, x: body.x,
                            into: &buffer)
            } else if let owner = row.ownerHeader {
                renderOwner(owner, row: row, state: state, theme: theme, y: y, x: body.x, width: body.width, into: &buffer)
                continue
            } else {
                renderRow(node, row: row, state: state, columns: columns, theme: theme, y: y, x: body.x, into: &buffer)
            }
            if row.selection == selected {
                buffer.setStyle(Rect(x: body.x, y: y, width: body.width, height: 1)) { $0.reverse = true }
            }
        }
    }

    /// Ended siblings alike, as one row: `▸ Future ×18`, their shared status, and the
    /// totals, all computed when the rows were derived (never by walking the members).
    /// A `⚠` when a closed group holds a stage with a warning.
    private static func renderGroup(_ group: StageGroup, row: TreeRow, state: AppState, columns: TreeColumns,
                                    theme: Theme, y: Int, x: Int, into buffer: inout ScreenBuffer) {
        let labelWidth = columns.label
        guard let newest = state.cursor.graph[group.newest] else { return }
        let marker = row.isCollapsed ? theme.glyphs.folded : theme.glyphs.unfolded
        var cx = x
        cx += buffer.put(indent(row.depth, labelWidth: labelWidth) + marker + " ", x: cx, y: y, maxWidth: labelWidth)
        let count = theme.text(" ×") + "\(group.count)"
        let linted = row.isCollapsed && state.warnings.lints.contains { state.tree.groupOf[$0.node] == group.id }
        let warn = linted ? theme.text(" ⚠") : ""
        let nameRoom = max(min(4, newest.operatorName.count), x + labelWidth - cx - 1 - count.count - warn.count)
        cx += buffer.putTruncated(newest.operatorName, x: cx, y: y, maxWidth: max(0, min(nameRoom, x + labelWidth - cx - 1)),
                                  style: theme.dim, glyphs: theme.glyphs)
        if x + labelWidth - cx > count.count { cx += buffer.put(count, x: cx, y: y, style: Style(bold: true)) }
        if linted, x + labelWidth - cx > warn.count {
            cx += buffer.put(warn, x: cx, y: y, style: Style(foreground: theme.colors ? .yellow : nil, bold: true))
        }
        if newest.parent == nil, x + labelWidth - cx > 4 {
            buffer.putTruncated(theme.text(" → ") + newest.subscriber, x: cx, y: y, maxWidth: x + labelWidth - cx - 1,
                                style: theme.dim, glyphs: theme.glyphs)
        }
        var rx = x + labelWidth
        let status = group.status ?? newest.status
        let word = theme.glyph(status, of: group.members.compactMap { state.cursor.graph[$0] })
            + (columns.spellsStatus ? " " + status.rawValue : "")
        buffer.put(Format.pad(word, columns.status), x: rx, y: y, style: theme.style(status), maxWidth: columns.status)
        rx += columns.status
        buffer.put(Format.pad(Format.demand(group.requested, theme: theme), TreeColumns.demand, right: true), x: rx, y: y)
        rx += TreeColumns.demand + TreeColumns.outstanding
        buffer.put(Format.pad(Format.count(group.values), TreeColumns.values + 1, right: true), x: rx, y: y)
    }

    /// Released owners of one name whose pipelines all ended, as one heading:
    /// `▸ ⌂ ProfileScreen ×5  owners of 10 pipelines · released`.
    private static func renderOwners(_ group: StageGroup, row: TreeRow, state: AppState, theme: Theme, y: Int, x: Int,
                                     width: Int, into buffer: inout ScreenBuffer) {
        let marker = row.isCollapsed ? theme.glyphs.folded : theme.glyphs.unfolded
        let text = indent(row.depth, labelWidth: width) + marker + theme.text(" ⌂ ") + (group.owner?.name ?? "?")
            + theme.text(" ×\(group.count)  owners of \(group.pipelines) pipeline\(group.pipelines == 1 ? "" : "s") · released")
        buffer.putTruncated(text, x: x, y: y, maxWidth: width, style: theme.dim, glyphs: theme.glyphs)
    }

    private static func renderRow(_ node: NodeSummary, row: TreeRow, state: AppState, columns: TreeColumns,
                                  theme: Theme, y: Int, x: Int, into buffer: inout ScreenBuffer) {
        let labelWidth = columns.label
        let marker = row.hasChildren ? (row.isCollapsed ? theme.glyphs.folded : theme.glyphs.unfolded) : theme.glyphs.leaf
        var cx = x
        cx += buffer.put(indent(row.depth, labelWidth: labelWidth) + marker + " ", x: cx, y: y, maxWidth: labelWidth)
        let nameStyle = node.status.isTerminal ? theme.dim : Style(bold: row.depth == 0)
        // Marks that matter while debugging come before the name's tail: a long name is
        // shortened rather than hiding where the cursor or the next step is.
        var marks: [(text: String, style: Style)] = []
        if let cursor = state.cursor.position, state.cursor.log.event(at: cursor)?.node == node.id {
            marks.append((theme.text(" ◆ here"), Style(foreground: theme.colors ? .magenta : nil, bold: true)))
        }
        if state.session.nextPending?.node == node.id {
            marks.append((theme.text(" ▶ next"), Style(foreground: theme.colors ? .yellow : nil, bold: true)))
        }
        if state.warnings.nodes.contains(node.id) {
            marks.append((theme.text(" ⚠"), Style(foreground: theme.colors ? .yellow : nil, bold: true)))
        }
        // The stage holding its pipeline's wait: `‖`, then the wait in words if there is
        // room left after the name (`‖ waits 41s`).
        let waitStyle = Style(foreground: theme.colors ? .yellow : nil, bold: true)
        let holds = state.warnings.waits.holders.contains(node.id)
        if holds { marks.append((theme.text(" ‖"), waitStyle)) }
        let marksWidth = marks.reduce(0) { $0 + $1.text.count }
        let nameRoom = max(min(4, node.operatorName.count), x + labelWidth - cx - 1 - marksWidth)
        cx += buffer.putTruncated(node.operatorName, x: cx, y: y, maxWidth: max(0, min(nameRoom, x + labelWidth - cx - 1)),
                                  style: nameStyle, glyphs: theme.glyphs)
        for mark in marks where x + labelWidth - cx > mark.text.count {
            cx += buffer.put(mark.text, x: cx, y: y, style: mark.style)
        }
        if holds, let words = heldWait(node.id, state: state).map({ " " + $0.mark(now: state.timelineEnd) }),
           x + labelWidth - cx > words.count {
            cx += buffer.put(words, x: cx, y: y, style: waitStyle)
        }
        if node.parent == nil, x + labelWidth - cx > 4 {
            cx += buffer.putTruncated(theme.text(" → ") + node.subscriber, x: cx, y: y, maxWidth: x + labelWidth - cx - 1,
                                      style: theme.dim, glyphs: theme.glyphs)
        }
        if let group = shareGroup(node), x + labelWidth - cx > 6 {
            cx += buffer.put(theme.text(" ≡") + "\(group)", x: cx, y: y, style: theme.dim)
        }
        if node.orphaned, x + labelWidth - cx > 4 {
            buffer.putTruncated(" orphaned", x: cx, y: y, maxWidth: x + labelWidth - cx - 1,
                                style: theme.style(.cancelled), glyphs: theme.glyphs)
        }
        renderColumns(node, columns: columns, theme: theme, y: y, x: x + labelWidth, into: &buffer)
    }

    /// A shared upstream shown again under another branch: it names the stage and
    /// points to where its own row is.
    private static func renderReference(_ node: NodeSummary, row: TreeRow, columns: TreeColumns, theme: Theme,
                                        y: Int, x: Int, into buffer: inout ScreenBuffer) {
        let labelWidth = columns.label
        let text = indent(row.depth, labelWidth: labelWidth) + theme.text("↗ ") + "#\(node.id) \(node.operatorName) (shared upstream)"
        buffer.putTruncated(text, x: x, y: y, maxWidth: labelWidth - 1, style: theme.dim, glyphs: theme.glyphs)
        renderColumns(node, columns: columns, theme: theme, y: y, x: x + labelWidth, into: &buffer)
    }

    /// An owner's heading: its name, how many pipelines it holds, and whether it was
    /// released (its pipelines then show "cancelled by owner", or an owner-leak lint).
    private static func renderOwner(_ owner: Owner, row: TreeRow, state: AppState, theme: Theme, y: Int, x: Int,
                                    width: Int, into buffer: inout ScreenBuffer) {
        let released = state.cursor.graph.owners[owner.id]?.releasedNanos != nil
        let held = row.ownerPipelines
        let text = indent(row.depth, labelWidth: width) + theme.glyphs.unfolded + theme.text(" ⌂ ") + owner.name
            + "  owner of \(held) pipeline\(held == 1 ? "" : "s")" + (released ? " · released" : "")
        buffer.putTruncated(text, x: x, y: y, maxWidth: width, style: released ? theme.dim : Style(foreground: theme.colors ? .cyan : nil, bold: true),
                            glyphs: theme.glyphs)
    }

    /// The rows on screen for a body of `height` lines: the reducer keeps the offset,
    /// and a render for another size still shows the selection. The timeline uses the
    /// same rows, so its lanes line up with the tree.
    public static func visibleRows(_ state: AppState, height: Int) -> (offset: Int, rows: ArraySlice<TreeRow>) {
        let rows = state.tree.rows
        let selectedIndex = state.tree.currentIndex ?? 0
        var offset = min(state.tree.offset, max(0, rows.count - height))
        if selectedIndex < offset || selectedIndex >= offset + height {
            offset = max(0, selectedIndex - height + 1)
        }
        return (offset, rows.dropFirst(offset).prefix(height))
    }

    /// The wait of the pipeline whose wait stage `id` holds (its root's verdict).
    static func heldWait(_ id: NodeID, state: AppState) -> Wait? {
        guard let root = state.pipeline(of: id), let wait = state.warnings.waits.pipeline(root), wait.at == id else {
            return nil
        }
        return wait
    }

    /// The stage owning the subscription this stage shares, when it shares one.
    static func shareGroup(_ node: NodeSummary) -> NodeID? {
        if let owner = node.subscriptionOwner { return owner }
        return node.sharers.isEmpty ? nil : node.id
    }

    /// Two spaces per level, but never more than half the label column, so deep stages
    /// keep their names.
    private static func indent(_ depth: Int, labelWidth: Int) -> String {
        String(repeating: " ", count: min(depth * 2, labelWidth / 2))
    }

    /// Where the stage was made: its own location plain, its pipeline's dimmed.
    private static func renderLocation(_ placed: StageLocation, columns: TreeColumns, theme: Theme, y: Int, x: Int,
                                       into buffer: inout ScreenBuffer) {
        let column = x + columns.locationOffset
        buffer.put(columns.fit(placed.location, ellipsis: theme.glyphs.ellipsis), x: column, y: y,
                   style: placed.isInherited ? theme.dim : .plain, maxWidth: columns.location)
    }

    private static func renderColumns(_ node: NodeSummary, columns: TreeColumns, theme: Theme, y: Int, x: Int,
                                      into buffer: inout ScreenBuffer) {
        var rx = x
        let status = theme.glyph(of: node) + (columns.spellsStatus ? " " + node.status.rawValue : "")
        buffer.put(Format.pad(status, columns.status), x: rx, y: y, style: theme.style(node.status), maxWidth: columns.status)
        rx += columns.status
        buffer.put(Format.pad(Format.demand(node.requested, theme: theme), TreeColumns.demand, right: true), x: rx, y: y)
        rx += TreeColumns.demand
        let outstanding = node.status.isTerminal ? "" : Format.demand(node.outstanding, theme: theme)
        buffer.put(Format.pad(outstanding, TreeColumns.outstanding, right: true), x: rx, y: y)
        rx += TreeColumns.outstanding
        buffer.put(Format.pad(Format.count(node.values), TreeColumns.values + 1, right: true), x: rx, y: y)
        rx += TreeColumns.values + 1
        if columns.time > 0, let own = node.times?.own, own.count > 0 {
            buffer.put(Format.pad(CellText.duration(own.p50), columns.time, right: true), x: rx, y: y)
        }
    }
}
