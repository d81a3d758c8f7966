import PipescopeModel
import TerminalKit

/// Every key, drawn from ``KeyMap/bindings`` in a box over the middle of the screen.
public enum HelpOverlay {
    public static func render(theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let bindings = KeyMap.bindings
        // In a key label → is the Right key, not the flow arrow it means elsewhere.
        let labels = bindings.map { theme.text(theme.glyphs.isUnicode ? $0.label : $0.label.replacingOccurrences(of: "→", with: "Right")) }
        let labelWidth = (labels.map(\.count).max() ?? 4) + 2
        let contentWidth = labelWidth + (bindings.map { $0.help.count }.max() ?? 20)
        let width = min(area.width, contentWidth + 4)
        let height = min(area.height, bindings.count + 4)
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: "Keys", style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        let room = max(0, inner.height - 1)
        let shown = bindings.count <= room ? bindings.count : max(0, room - 1)
        for i in 0..<shown {
            let y = inner.y + i
            buffer.put(" " + labels[i], x: inner.x, y: y, style: Style(bold: true), maxWidth: labelWidth)
            buffer.putTruncated(theme.text(bindings[i].help), x: inner.x + labelWidth + 1, y: y,
                                maxWidth: inner.width - labelWidth - 1, glyphs: theme.glyphs)
        }
        if shown < bindings.count, inner.height > 1 {
            buffer.putTruncated(theme.text(" … \(bindings.count - shown) more: enlarge the terminal"),
                                x: inner.x, y: inner.y + shown, maxWidth: inner.width, style: theme.dim, glyphs: theme.glyphs)
        }
        if inner.height > 0 {
            buffer.putTruncated(" ? or Esc closes", x: inner.x, y: inner.maxY - 1, maxWidth: inner.width,
                                style: theme.dim, glyphs: theme.glyphs)
        }
    }
}
