import PipescopeModel
import TerminalKit

/// The whole screen: status bar, the pipelines table or the tree and its panes, and the
/// hint bar.
///
/// The table (the first screen) has the body to itself. On the tree screen, wide terminals put the detail beside the tree; narrow ones stack it below. Below
/// ``minimumWidth`` x ``minimumHeight`` the screen says how large it needs to be.
public enum ScreenView {
    public static let minimumWidth = 50
    public static let minimumHeight = 22

    public static func render(_ state: AppState, theme: Theme, into buffer: inout ScreenBuffer) {
        let screen = buffer.bounds
        guard screen.width >= minimumWidth, screen.height >= minimumHeight else {
            renderTooSmall(theme: theme, into: &buffer)
            return
        }
        StatusBar.render(state, theme: theme, area: screen.row(0), into: &buffer)
        HintBar.render(state, theme: theme, area: screen.row(screen.height - 1), into: &buffer)
        let body = Rect(x: 0, y: 1, width: screen.width, height: screen.height - 2)
        if state.page == .table {
            buffer.drawBox(body, title: tableTitle(state, theme: theme), style: theme.border, titleStyle: theme.title,
                           glyphs: theme.glyphs)
            TableView.render(state, theme: theme, area: body.inset(by: 1), into: &buffer)
            renderOverlays(state, body: body, theme: theme, into: &buffer)
            return
        }
        if state.page == .timeline {
            TimelineScreen.render(state, layout: TimelineScreen.layout(body), theme: theme, into: &buffer)
            renderOverlays(state, body: body, theme: theme, into: &buffer)
            return
        }
        if let panes = fourPanes(body) {
            renderFourPanes(state, panes, theme: theme, into: &buffer)
            renderOverlays(state, body: body, theme: theme, into: &buffer)
            return
        }
        let (treeBox, detailBox) = layout(body, stageFocused: state.focus == .detail)
        drawPaneBox(treeBox, treeTitle(state, theme: theme, width: treeBox.width), focused: state.focus == .tree,
                    theme: theme, into: &buffer)
        TreeView.render(state, theme: theme, area: treeBox.inset(by: 1), into: &buffer)
        drawPaneBox(detailBox, DetailView.title(state, theme: theme, area: detailBox.inset(by: 1)),
                    focused: state.focus == .detail, theme: theme, into: &buffer)
        DetailView.render(state, theme: theme, area: detailBox.inset(by: 1), into: &buffer)
        renderOverlays(state, body: body, theme: theme, into: &buffer)
    }

    /// The layer's overlay, if it has one: the layer the keys go to is the one on top.
    static func renderOverlays(_ state: AppState, body: Rect, theme: Theme, into buffer: inout ScreenBuffer) {
        switch state.layer {
        case .help(let overlay):
            HelpOverlay.render(theme: theme, area: body, offset: overlay.offset, quitting: KeyMap.Quitting(state),
                               into: &buffer)
        case .warnings(let overlay):
            LintsOverlay.render(state, theme: theme, area: body, firstRow: overlay.offset, into: &buffer)
        case .confirmingCancel(let preview):
            ConfirmCancelOverlay.render(preview, state: state, theme: theme, area: body, into: &buffer)
        case .explaining(let explanation):
            ExplainOverlay.render(explanation, theme: theme, area: body, into: &buffer)
        case .browsing, .filtering:
            break
        }
    }

    /// "Pipelines: 12, sorted by RATE ▼", and how many ended ones `x` hides when set;
    /// "Pipelines: 20 in 18 rows" when some share a folded row (``PlaceFolds``).
    static func tableTitle(_ state: AppState, theme: Theme) -> String {
        let table = state.table
        let arrow = theme.glyphs.isUnicode ? (table.descending ? "▼" : "▲") : (table.descending ? "v" : "^")
        let pipelines = table.rows.pipelines
        var title = "Pipelines: \(pipelines)"
        if pipelines != table.rows.count { title += " in \(table.rows.count) rows" }
        if state.tree.hideEnded { title += " (ended hidden)" }
        return title + ", sorted by \(table.sort.spokenTitle) \(arrow)  (< > i)"
    }

    /// "Pipelines (12 stages)", with the filter and how many ended stages `x` hides when
    /// set; "Pipeline #3 only (Esc: back to the table): Just → Map → Sink" when one
    /// pipeline is shown.
    ///
    /// The pipeline's name is cut as the table cuts it, in the middle, to fit a box
    /// `width` wide (with room for the focus mark " *").
    static func treeTitle(_ state: AppState, theme: Theme = .plainUnicode, width: Int = .max) -> String {
        if let root = state.tree.scope {
            let head = "Pipeline #\(root) only (Esc: back to the table): "
            var filter = ""
            if !state.tree.filter.isEmpty { filter = " /\(state.tree.filter): \(state.tree.matches.count) match\(state.tree.matches.count == 1 ? "" : "es")" }
            let room = width == .max ? Int.max / 2 : max(7, width - 6 - head.count - filter.terminalWidth)
            let name = TableView.shortened(PipelineName(root: root, in: state.cursor.graph), width: room, theme: theme)
            return head + theme.text(name) + filter
        }
        let count = state.cursor.graph.nodes.count
        var title = "Pipelines (\(count) \(count == 1 ? "stage" : "stages")"
            + (state.tree.hideEnded ? ", \(state.tree.hiddenEnded) ended hidden)" : ")")
        if !state.tree.filter.isEmpty { title += " /\(state.tree.filter): \(state.tree.matches.count) match\(state.tree.matches.count == 1 ? "" : "es")" }
        return title
    }

    /// The message for a terminal of this size: the size and what the layout gives each
    /// part (``geometry(width:height:theme:)``), since the model cannot know the layout.
    ///
    /// ```swift
    /// _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
    /// ```
    /// `quitting` says what the help's `q` line says (``KeyMap/Quitting``), which its
    /// wrapping, and so its scrolling, depends on.
    public static func resized(width: Int, height: Int, theme: Theme = .plainUnicode,
                               quitting: KeyMap.Quitting = .programKeepsRunning) -> Message {
        .resize(geometry(width: width, height: height, theme: theme, quitting: quitting))
    }

    /// What this layout gives each part of a `width` x `height` screen: the one place the
    /// reducer's paging and scrolling sizes come from.
    public static func geometry(width: Int, height: Int, theme: Theme = .plainUnicode,
                                quitting: KeyMap.Quitting = .programKeepsRunning) -> Geometry {
        let body = Rect(x: 0, y: 1, width: width, height: max(0, height - 2))
        let help = HelpOverlay.page(in: body, theme: theme, quitting: quitting)
        // The table fills the body inside its box (see `render`).
        return Geometry(width: width, height: height, treePage: treePageSize(width: width, height: height),
                        tablePage: max(1, height - 5), tableWidth: max(0, width - 2),
                        helpPage: help.page, helpLines: help.lines,
                        timelineWidth: fourPanes(body).map { max(0, $0.timeline.width - 2) } ?? 0,
                        timelineScreenWidth: TimelineScreen.layout(body).lanes.width,
                        detailPage: max(1, stageBox(body, stageFocused: true).height - 2))
    }

    /// The Stage pane's box on the tree screen.
    static func stageBox(_ body: Rect, stageFocused: Bool) -> Rect {
        fourPanes(body)?.detail ?? layout(body, stageFocused: stageFocused).detail
    }

    /// How many lines the Stage pane's text has at the width the layout gives it now
    /// (nil off the tree screen): the app sends it (``Message/detailLines(_:)``) so the
    /// pane scrolls no further than its last line.
    public static func detailLines(_ state: AppState, theme: Theme) -> Int? {
        guard state.page == .tree, state.width >= minimumWidth, state.height >= minimumHeight else { return nil }
        let body = Rect(x: 0, y: 1, width: state.width, height: state.height - 2)
        let area = stageBox(body, stageFocused: state.focus == .detail).inset(by: 1)
        return DetailView.lineCount(state, theme: theme, width: area.width)
    }

    /// How many rows the warnings list shows whole from its first (nil while it is not
    /// open): the app sends it (``Message/warningsShown(_:)``) so PgDn moves by a page
    /// of whole rows.
    public static func warningsShown(_ state: AppState, theme: Theme) -> Int? {
        guard case .warnings(let overlay) = state.layer, state.width >= minimumWidth, state.height >= minimumHeight
        else { return nil }
        let body = Rect(x: 0, y: 1, width: state.width, height: state.height - 2)
        return LintsOverlay.rowsShown(state, theme: theme, area: body, firstRow: overlay.offset)
    }

    /// How many tree rows fit, so paging can move by a screenful.
    public static func treePageSize(width: Int, height: Int) -> Int {
        let body = Rect(x: 0, y: 1, width: width, height: max(0, height - 2))
        if let panes = fourPanes(body) { return max(1, panes.tree.height - 3) }
        return max(1, layout(body).tree.height - 3)
    }

    struct Panes {
        var tree, timeline, detail, events: Rect
    }

    /// The full layout (tree and timeline above, detail and event log below) when the
    /// terminal is at least 120x30.
    static func fourPanes(_ body: Rect) -> Panes? {
        guard body.width >= 120, body.height >= 28 else { return nil }
        let (top, bottom) = body.splitVertically(at: body.height * 3 / 5)
        let (tree, timeline) = top.splitHorizontally(at: top.width * 11 / 20)
        let (detail, events) = bottom.splitHorizontally(at: bottom.width * 11 / 20)
        return Panes(tree: tree, timeline: timeline, detail: detail, events: events)
    }

    /// A pane's box; the focused one (where the arrows act) is bold, its title marked `*`.
    static func drawPaneBox(_ rect: Rect, _ title: String, focused: Bool, theme: Theme,
                            into buffer: inout ScreenBuffer) {
        let border = focused ? Style(foreground: theme.colors ? .yellow : nil, bold: true) : theme.border
        buffer.drawBox(rect, title: focused ? title + " *" : title, style: border,
                       titleStyle: focused ? Style(bold: true, reverse: true) : theme.title, glyphs: theme.glyphs)
    }

    static func renderFourPanes(_ state: AppState, _ p: Panes, theme: Theme, into buffer: inout ScreenBuffer) {
        func box(_ rect: Rect, _ title: String, _ pane: Pane) {
            drawPaneBox(rect, title, focused: state.focus == pane, theme: theme, into: &buffer)
        }
        box(p.tree, treeTitle(state, theme: theme, width: p.tree.width), .tree)
        TreeView.render(state, theme: theme, area: p.tree.inset(by: 1), into: &buffer)
        box(p.timeline, TimelineView.title(state, theme: theme), .timeline)
        TimelineView.render(state, theme: theme, area: p.timeline.inset(by: 1), into: &buffer)
        box(p.detail, DetailView.title(state, theme: theme, area: p.detail.inset(by: 1)), .detail)
        DetailView.render(state, theme: theme, area: p.detail.inset(by: 1), into: &buffer)
        box(p.events, EventLogView.title(state), .events)
        EventLogView.render(state, theme: theme, area: p.events.inset(by: 1), into: &buffer)
    }

    static func layout(_ body: Rect, stageFocused: Bool = false) -> (tree: Rect, detail: Rect) {
        if body.width >= 110 {
            let split = body.splitHorizontally(at: body.width * 3 / 5)
            return (split.left, split.right)
        }
        // Seven lines of detail (plus borders) when there is room: type, id and thread,
        // status, demand, values, times, and sharing. With the focus the Stage pane takes
        // three fifths, and the tree keeps the selected stage in what is left.
        let detailHeight = stageFocused ? max(4, body.height * 3 / 5) : min(9, max(4, body.height * 2 / 5))
        let split = body.splitVertically(at: body.height - detailHeight)
        return (split.top, split.bottom)
    }

    static func renderTooSmall(theme: Theme, into buffer: inout ScreenBuffer) {
        let lines = [
            "Terminal too small",
            "need \(minimumWidth)x\(minimumHeight), have \(buffer.width)x\(buffer.height)",
            "enlarge the window, or press q",
        ]
        for (i, line) in lines.enumerated() where i < buffer.height {
            buffer.putTruncated(line, x: 0, y: i, maxWidth: buffer.width, style: i == 0 ? theme.title : .plain,
                                glyphs: theme.glyphs)
        }
    }
}
