import PipescopeModel
import TerminalKit

/// Every key, drawn from ``KeyMap/bindings`` in a box over the middle of the screen.
public enum HelpOverlay {
    /// The marks a tree row can carry, after the keys.
    static let legend = "marks: ⚠ lint  ≡N shares #N's subscription  ◆ cursor  ▶ next at the gate  ×N group"

    public static func render(theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let bindings = KeyMap.bindings
        // In a key label → is the Right key, not the flow arrow it means elsewhere.
        let labels = bindings.map { theme.text(theme.glyphs.isUnicode ? $0.label : $0.label.replacingOccurrences(of: "→", with: "Right")) }
        let labelWidth = (labels.map(\.count).max() ?? 4) + 2
        let contentWidth = labelWidth + (bindings.map { $0.help.count }.max() ?? 20)
        let width = min(area.width, contentWidth + 4)
        let rowsNeeded = bindings.count + 4
        // Two columns when one does not fit the height, descriptions shortened.
        let columns = rowsNeeded > area.height ? 2 : 1
        let height = min(area.height, (bindings.count + columns - 1) / columns + 4)
        let boxWidth = columns == 1 ? width : area.width
        let box = Rect(x: area.x + (area.width - boxWidth) / 2, y: area.y + (area.height - height) / 2,
                       width: boxWidth, height: height)
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: "Keys", style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        let perColumn = (bindings.count + columns - 1) / columns
        let columnWidth = inner.width / columns
        let room = max(0, inner.height - 1)
        for (i, binding) in bindings.enumerated() {
            let row = i % perColumn, column = i / perColumn
            guard row < room else { continue }
            let x = inner.x + column * columnWidth
            buffer.put(" " + labels[i], x: x, y: inner.y + row, style: Style(bold: true), maxWidth: labelWidth)
            buffer.putTruncated(theme.text(binding.help), x: x + labelWidth + 1, y: inner.y + row,
                                maxWidth: max(0, columnWidth - labelWidth - 2), glyphs: theme.glyphs)
        }
        if perColumn > room, inner.height > 1 {
            buffer.putTruncated(theme.text(" … enlarge the terminal to see every key"),
                                x: inner.x, y: inner.y + room - 1, maxWidth: inner.width, style: theme.dim, glyphs: theme.glyphs)
        }
        if inner.height > 0 {
            buffer.putTruncated(theme.text(" ? or Esc closes   " + legend), x: inner.x, y: inner.maxY - 1, maxWidth: inner.width,
                                style: theme.dim, glyphs: theme.glyphs)
        }
    }
}
