import PipescopeGraph
import PipescopeModel
import TerminalKit

/// Where a value came from (`e`): the chain of the selected event, or the selected
/// stage's last value, one hop a line, newest first: the stage, what it delivered, its
/// thread, the time since its cause and where the program made it; a gathering stage's
/// inputs under it; and how the chain ends. Long lines wrap, never cut; ↑ ↓ scroll.
public enum ExplainOverlay {
    public static func render(_ explanation: Explanation, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let width = Explanation.boxWidth(bodyWidth: area.width)
        let lines = explanation.lines(width: width - 3) { text($0, theme: theme) }
        let visible = min(lines.count, max(1, area.height - 3))
        let height = min(area.height, visible + 3)
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: theme.text(explanation.title), style: theme.border, titleStyle: theme.title,
                       glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        let offset = min(explanation.overlay.offset, max(0, lines.count - visible))
        for (row, line) in lines.dropFirst(offset).prefix(visible).enumerated() {
            buffer.putTruncated(" " + line, x: inner.x, y: inner.y + row, maxWidth: inner.width,
                                style: style(of: line, theme: theme), glyphs: theme.glyphs)
        }
        let more = offset + visible < lines.count ? "  (↓ more)" : ""
        buffer.putTruncated(theme.text(" e or Esc closes" + more), x: inner.x, y: inner.maxY - 1, maxWidth: inner.width,
                            style: theme.dim, glyphs: theme.glyphs)
    }

    /// The line in the theme's characters: in ASCII `<-` for `←`, `us` for `µs`.
    static func text(_ line: String, theme: Theme) -> String {
        guard !theme.glyphs.isUnicode else { return line }
        return theme.text(line.replacingOccurrences(of: "←", with: "<-").replacingOccurrences(of: "µs", with: "us"))
    }

    /// The receiver's line bold, how the chain ends dim, the rest plain.
    private static func style(of line: String, theme: Theme) -> Style {
        if line.hasPrefix("Origin") || line.hasPrefix("Earlier") || line.hasPrefix("No causes") || line.hasPrefix("    ") {
            return theme.dim
        }
        return line.hasPrefix("←") || line.hasPrefix("<-") ? Style() : Style(bold: true)
    }
}
