import PipescopeModel
import TerminalKit

/// Every key, drawn from ``KeyMap/bindings`` in a box over the middle of the screen.
///
/// One column when it fits the height, else two side by side when they fit both the
/// height and, undiminished, the width; otherwise one column that ↑ ↓ PgUp PgDn scroll
/// (``AppState/helpOffset``), its footer saying which keys are shown.
public enum HelpOverlay {
    /// The marks a tree row can carry, after the keys.
    static let legend = "marks: ⚠ lint  ≡N shares #N's subscription  ◆ cursor  ▶ next at the gate  ×N group"

    /// Lines of keys the help has (one per binding).
    public static var lineCount: Int { KeyMap.bindings.count }

    public static func render(theme: Theme, area: Rect, offset: Int = 0, into buffer: inout ScreenBuffer) {
        let bindings = KeyMap.bindings
        // In a key label → is the Right key, not the flow arrow it means elsewhere.
        let labels = bindings.map { theme.text(theme.glyphs.isUnicode ? $0.label : $0.label.replacingOccurrences(of: "→", with: "Right")) }
        let labelWidth = (labels.map(\.count).max() ?? 4) + 2
        let contentWidth = labelWidth + (bindings.map { $0.help.count }.max() ?? 20)
        let width = min(area.width, contentWidth + 4)
        // Two columns when one does not fit the height, descriptions shortened; one
        // scrolled column when two do not fit either.
        let fitsOne = bindings.count + 4 <= area.height
        let fitsTwo = (bindings.count + 1) / 2 + 4 <= area.height && 2 * (contentWidth + 2) <= area.width
        let columns = !fitsOne && fitsTwo ? 2 : 1
        let scrolls = !fitsOne && !fitsTwo
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
        let first = scrolls ? min(max(0, offset), max(0, bindings.count - room)) : 0
        for (i, binding) in bindings.enumerated() {
            let row = i % perColumn - first, column = i / perColumn
            guard row >= 0, row < room else { continue }
            let x = inner.x + column * columnWidth
            buffer.put(" " + labels[i], x: x, y: inner.y + row, style: Style(bold: true), maxWidth: labelWidth)
            buffer.putTruncated(theme.text(binding.help), x: x + labelWidth + 1, y: inner.y + row,
                                maxWidth: max(0, columnWidth - labelWidth - 2), glyphs: theme.glyphs)
        }
        guard inner.height > 0 else { return }
        var footer = " ? or Esc closes   "
        if scrolls {
            footer += "↑↓ PgDn scroll \(first + 1)-\(min(bindings.count, first + room))/\(bindings.count)   "
        }
        buffer.putTruncated(theme.text(footer + legend), x: inner.x, y: inner.maxY - 1, maxWidth: inner.width,
                            style: theme.dim, glyphs: theme.glyphs)
    }
}
