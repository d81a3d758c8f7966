import PipescopeGraph
import PipescopeModel
import TerminalKit

/// One lane per visible tree row, aligned with it: each stage's events over time, the
/// newest at the right edge. Marks: ▲ subscribe, ▸ request, • value, │ finished,
/// ✗ failed, ⊘ cancelled (ASCII: ^ > . | x /). In live mode the right edge is now and
/// the lanes scroll; in history it is the event at the cursor, marked by a column.
public enum TimelineView {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2, area.width >= 10 else { return }
        let scale = state.timeline.scale
        let end = state.timelineEnd
        let label = "\(Format.duration(scale))/col  " + theme.text("+ - zoom  = fit")
        buffer.putTruncated(label, x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let (_, rows) = TreeView.visibleRows(state, height: body.height)
        for (line, row) in rows.enumerated() {
            guard let marks = state.timeline.lanes[row.id], row.isStage else { continue }
            let y = body.y + line
            // Oldest first, so a later, weightier mark in the same column wins.
            for mark in marks {
                let age = end - mark.time
                guard age >= 0 else { continue }
                let column = body.width - 1 - Int(age / scale)
                guard column >= 0 else { continue }
                let (glyph, style) = self.glyph(mark.kind, theme: theme)
                let existing = buffer[body.x + column, y].character
                if weight(of: existing, theme: theme) <= weight(of: Character(glyph), theme: theme) {
                    buffer.put(glyph, x: body.x + column, y: y, style: style, maxWidth: 1)
                }
            }
        }
        if state.cursor.position != nil {
            buffer.setStyle(Rect(x: body.maxX - 1, y: body.y, width: 1, height: body.height)) { $0.reverse = true }
        }
    }

    static func glyph(_ kind: EventKind, theme: Theme) -> (String, Style) {
        let u = theme.glyphs.isUnicode
        switch kind {
        case .subscribe, .subscription: return (u ? "▲" : "^", theme.dim)
        case .request: return (u ? "▸" : ">", theme.dim)
        case .value: return (u ? "•" : ".", theme.style(.active))
        case .finished: return (u ? "│" : "|", theme.style(.finished))
        case .failed: return (u ? "✗" : "x", theme.style(.failed))
        case .cancelled: return (u ? "⊘" : "/", theme.style(.cancelled))
        case .forward, .adopt, .feeds, .owned, .ownerReleased, .contractBroken, .demand, .unknown:
            return (u ? "·" : ".", theme.dim)
        }
    }

    /// Which mark shows when several fall in one column: endings over values over the rest.
    private static func weight(of character: Character, theme: Theme) -> Int {
        switch character {
        case "✗", "x", "⊘", "/": return 4
        case "│", "|": return 3
        case "•", ".": return 2
        case "▲", "^", "▸", ">": return 1
        default: return 0
        }
    }
}
