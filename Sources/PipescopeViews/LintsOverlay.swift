import PipescopeModel
import TerminalKit

/// Every current warning, one per stage and kind: what happened and what to do.
public enum LintsOverlay {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let width = min(area.width, max(50, area.width * 4 / 5))
        let height = min(area.height, max(6, min(state.lints.count * 3 + 4, area.height)))
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: "Warnings (\(state.lints.count))", style: theme.border, titleStyle: theme.title,
                       glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        guard !state.lints.isEmpty else {
            buffer.putTruncated(" No lifecycle problems seen.", x: inner.x, y: inner.y, maxWidth: inner.width,
                                style: theme.dim, glyphs: theme.glyphs)
            return
        }
        var y = inner.y
        let warn = Style(foreground: theme.colors ? .yellow : nil, bold: true)
        for lint in state.lints {
            let message = DetailView.wrap(lint.message, width: max(1, inner.width - 3), maxLines: 2)
            guard y + message.count < inner.maxY - 1 else { break }
            let op = state.history.graph[lint.node]?.operatorName ?? "?"
            buffer.putTruncated(" " + theme.text("⚠ ") + "#\(lint.node) \(op)  \(lint.kind.rawValue)", x: inner.x, y: y,
                                maxWidth: inner.width, style: warn, glyphs: theme.glyphs)
            for (i, line) in message.enumerated() {
                buffer.putTruncated("   " + line, x: inner.x, y: y + 1 + i, maxWidth: inner.width, glyphs: theme.glyphs)
            }
            y += 1 + message.count
        }
        buffer.putTruncated(" w or Esc closes; -A <name> turns a lint off", x: inner.x, y: inner.maxY - 1,
                            maxWidth: inner.width, style: theme.dim, glyphs: theme.glyphs)
    }
}
