import PipescopeGraph
import PipescopeModel
import TerminalKit

/// One lane per visible tree row, aligned with it, under a time axis (``TimeRuler``):
/// each stage's life as a bar from its subscribe to its end, its values on it, the way
/// Timelane and Instruments draw a subscription (``LaneDrawing`` decides each column).
/// Live, the right edge is now and the lanes scroll; in history the cursor's moment is a
/// reversed column (`▼` on the ruler) that `←` `→` move through time, the window
/// scrolling when it reaches an edge (``AppState/timelineWindowEnd``).
///
/// Marks (ASCII in brackets): `├` subscribe [`|`]; `━` alive with demand outstanding
/// [`=`]; `┄` alive with no demand, held back by its subscriber [`-`]; `▸` a request
/// [`>`]; `•` a value [`.`], several in one column by density `▂▃▄▅▆▇█` [`: * #`]; `✓`
/// finished [`]`], `✗` failed [`x`], `⊘` cancelled from downstream [`/`], `⊗` cancelled
/// by the inspector [`!`], `⌂` cancelled by its owner [`o`]; a digit: that many members
/// of a group alive at once (`+`: ten or more). A lane whose stage ended before the
/// window reads `◂ ended 12 s ago` [`<`] rather than nothing. `↯` [`~`], on the ruler and
/// the lanes of the pipelines that lost them: the probe dropped events there.
public enum TimelineView {
    /// The pane's title: the scale and its keys.
    public static func title(_ state: AppState, theme: Theme) -> String {
        "Timeline " + Format.span(state.timeline.scale) + "/col  " + theme.text("+ - zoom  = fit")
    }

    /// The marks in a line, for the help and the README.
    public static func legend(theme: Theme) -> String {
        theme.glyphs.isUnicode
            ? "timeline: ├ subscribe  ━ demand  ┄ no demand  ▸ request  • value (▂…█ more)  ✓ ✗ ⊘ ⊗ ⌂ end  2-9 overlap  ↯ dropped"
            : "timeline: | subscribe  = demand  - no demand  > request  . value (: * # more)  ] x / ! o end  2-9 overlap  ~ dropped"
    }

    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2, area.width >= 10 else { return }
        // Counting back from now makes sense only while live; a replay's end, or the
        // moment the program ended, is no "now": the ruler then reads clock times.
        let live = state.cursor.position == nil && !state.session.isReplay && !state.session.hasEnded
        let window = LaneDrawing.Window(end: state.timelineWindowEnd, scale: state.timeline.scale, width: area.width)
        let cursor = state.cursorMoment.map { window.column(of: $0) }
        buffer.putTruncated(TimeRuler.line(end: window.end, scale: window.scale, width: area.width, live: live,
                                           cursor: cursor, unicode: theme.glyphs.isUnicode),
                            x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let (_, rows) = TreeView.visibleRows(state, height: body.height)
        let graph = state.cursor.graph
        for (line, row) in rows.enumerated() {
            let marks: [LaneDrawing.Mark]
            let status: NodeStatus
            let ended: Int64?
            if let group = row.group, group.id.key.isOwner == false, let newest = graph[group.newest] {
                marks = LaneDrawing.group(group.members.compactMap { graph[$0] }, lanes: state.timeline.lanes,
                                          in: window)
                status = newest.status
                ended = group.status?.isTerminal == true ? group.lastEndedNanos : nil
            } else if row.isStage, let node = graph[row.id] {
                marks = LaneDrawing.stage(node, lane: state.timeline.lanes[row.id], in: window)
                status = node.status
                ended = node.status.isTerminal ? node.endedNanos : nil
            } else {
                continue
            }
            let y = body.y + line
            // A life wholly left of the window leaves its lane blank, which reads as "no
            // data" to someone who opens an ended pipeline's timeline: say when it ended
            // (the title names `=`, which fits the window to everything kept).
            if let ended, window.column(of: ended) < 0, !marks.contains(where: { $0 != .none }) {
                let when = live ? "\(Format.span(window.end - ended)) ago" : "at \(Format.time(ended))"
                buffer.putTruncated(theme.text("◂ ended \(when)"), x: body.x, y: y,
                                    maxWidth: body.width, style: theme.dim, glyphs: theme.glyphs)
                continue
            }
            for (column, mark) in marks.enumerated() where mark != .none {
                let (glyph, style) = self.glyph(mark, status: status, theme: theme)
                buffer.put(glyph, x: body.x + column, y: y, style: style, maxWidth: 1)
            }
        }
        markDrops(state, rows: rows.map(\.id), window: window, area: area, theme: theme, into: &buffer)
        // The cursor: its moment's column, reversed down the lanes (▼ on the ruler).
        if let column = cursor, column >= 0, column < window.width {
            buffer.setStyle(Rect(x: area.x + column, y: area.y, width: 1, height: 1)) { $0 = theme.title }
            buffer.setStyle(Rect(x: body.x + column, y: body.y, width: 1, height: body.height)) { $0.reverse = true }
        }
    }

    /// Where the probe dropped events (``DropGaps``), up to the cursor: `↯` [`~`] on the
    /// ruler at the moment the first was lost, and on the lanes of the pipelines that lost
    /// them (every lane when the probe did not say whose they were).
    static func markDrops(_ state: AppState, rows: [NodeID], window: LaneDrawing.Window, area: Rect, theme: Theme,
                          into buffer: inout ScreenBuffer) {
        let gaps = state.dropGapsPassed
        guard !gaps.isEmpty else { return }
        let glyph = theme.glyphs.isUnicode ? "↯" : "~"
        let style = theme.style(.failed)
        let graph = state.cursor.graph
        let roots = rows.map { graph.pipeline(of: $0) ?? $0 }
        for gap in gaps.reversed() {
            let column = window.column(of: gap.time)
            if column < 0 { break }  // older gaps are further left still
            guard column < window.width else { continue }
            buffer.put(glyph, x: area.x + column, y: area.y, style: style, maxWidth: 1)
            for (line, root) in roots.enumerated() where gap.count(of: root) > 0 && line + 1 < area.height {
                buffer.put(glyph, x: area.x + column, y: area.y + 1 + line, style: style, maxWidth: 1)
            }
        }
    }

    /// A mark's glyph and style: the bar in the colour of the stage's status (`status`).
    static func glyph(_ mark: LaneDrawing.Mark, status: NodeStatus, theme: Theme) -> (String, Style) {
        let u = theme.glyphs.isUnicode
        switch mark {
        case .none: return (" ", .plain)
        case .bar: return (u ? "━" : "=", theme.style(status))
        case .held: return (u ? "┄" : "-", theme.dim)
        case .subscribe: return (u ? "├" : "|", theme.style(status))
        case .request: return (u ? "▸" : ">", theme.dim)
        case .value(let n): return (density(n, unicode: u), Style(bold: true))
        case .end(let status, let cause):
            return (ending(status, cause, unicode: u), theme.style(status))
        case .overlap(let n): return (n < 10 ? String(n) : "+", theme.style(.finished))
        }
    }

    /// One value `•`; more by orders of magnitude, so a burst of 500 never looks like one.
    static func density(_ n: Int, unicode: Bool) -> String {
        if unicode {
            switch n {
            case ...1: return "•"
            case ...3: return "▂"
            case ...9: return "▃"
            case ...31: return "▄"
            case ...99: return "▅"
            case ...315: return "▆"
            case ...999: return "▇"
            default: return "█"
            }
        }
        switch n {
        case ...1: return "."
        case ...9: return ":"
        case ...99: return "*"
        default: return "#"
        }
    }

    static func ending(_ status: NodeStatus, _ cause: CancelCause?, unicode u: Bool) -> String {
        switch status {
        case .finished: return u ? "✓" : "]"
        case .failed: return u ? "✗" : "x"
        case .cancelled:
            switch cause ?? .downstream {
            case .downstream: return u ? "⊘" : "/"
            case .inspector: return u ? "⊗" : "!"
            case .owner: return u ? "⌂" : "o"
            }
        case .active, .subscribing: return u ? "━" : "="
        }
    }
}
