import PipescopeModel
import TerminalKit

/// Every key, drawn from ``KeyMap/bindings`` in a box over the middle of the screen.
///
/// One column when it fits the height, else two side by side when they fit both the
/// height and, undiminished, the width; otherwise one column that ↑ ↓ PgUp PgDn scroll
/// (``Overlay/offset``), its footer saying which keys are shown. ``page(in:)`` tells the
/// screen's layout how far a page scrolls, from the same sizes the drawing uses.
public enum HelpOverlay {
    /// The marks a tree row can carry, after the keys.
    static let legend = "marks: ⚠ lint  ≡N shares #N's subscription  ◆ cursor  ▶ next at the gate  ×N group"

    /// Lines of keys the help has (one per binding).
    public static var lineCount: Int { KeyMap.bindings.count }

    /// How the help lays out in `area`: its columns, and whether it scrolls.
    struct Layout {
        var labels: [String]
        var labelWidth: Int
        var contentWidth: Int
        var columns: Int
        var scrolls: Bool
        /// Lines of keys on screen at once.
        var room: Int

        init(area: Rect, theme: Theme) {
            let bindings = KeyMap.bindings
            // In a key label → is the Right key, not the flow arrow it means elsewhere.
            labels = bindings.map {
                theme.text(theme.glyphs.isUnicode ? $0.label : $0.label.replacingOccurrences(of: "→", with: "Right"))
            }
            labelWidth = (labels.map(\.count).max() ?? 4) + 2
            contentWidth = labelWidth + (bindings.map { $0.help.count }.max() ?? 20)
            // Two columns when one does not fit the height, descriptions shortened; one
            // scrolled column when two do not fit either.
            let fitsOne = bindings.count + Self.chrome <= area.height
            let fitsTwo = (bindings.count + 1) / 2 + Self.chrome <= area.height && 2 * (contentWidth + 2) <= area.width
            columns = !fitsOne && fitsTwo ? 2 : 1
            scrolls = !fitsOne && !fitsTwo
            let height = min(area.height, (bindings.count + columns - 1) / columns + Self.chrome)
            room = max(0, height - Self.chrome + 1)
        }

        /// Lines besides the keys: the box's two borders, the footer with the tree's marks,
        /// the timeline's legend, and one blank line above them.
        static let chrome = 5

        /// The box's height in `area`.
        func height(in area: Rect) -> Int {
            min(area.height, (KeyMap.bindings.count + columns - 1) / columns + Self.chrome)
        }
    }

    /// How the help scrolls in `area`: the lines shown at once and the lines there are
    /// (equal when it all fits, so it never scrolls).
    public static func page(in area: Rect, theme: Theme) -> (page: Int, lines: Int) {
        let layout = Layout(area: area, theme: theme)
        return layout.scrolls ? (max(1, layout.room), lineCount) : (lineCount, lineCount)
    }

    public static func render(theme: Theme, area: Rect, offset: Int = 0, into buffer: inout ScreenBuffer) {
        let bindings = KeyMap.bindings
        let layout = Layout(area: area, theme: theme)
        let (labels, labelWidth, columns, scrolls) = (layout.labels, layout.labelWidth, layout.columns, layout.scrolls)
        let width = min(area.width, layout.contentWidth + 4)
        let height = layout.height(in: area)
        let boxWidth = columns == 1 ? width : area.width
        let box = Rect(x: area.x + (area.width - boxWidth) / 2, y: area.y + (area.height - height) / 2,
                       width: boxWidth, height: height)
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: "Keys", style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        let perColumn = (bindings.count + columns - 1) / columns
        let columnWidth = inner.width / columns
        let room = layout.room
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
        if inner.height > 1 {
            buffer.putTruncated(theme.text(footer + legend), x: inner.x, y: inner.maxY - 2, maxWidth: inner.width,
                                style: theme.dim, glyphs: theme.glyphs)
        }
        buffer.putTruncated(" " + TimelineView.legend(theme: theme), x: inner.x, y: inner.maxY - 1,
                            maxWidth: inner.width, style: theme.dim, glyphs: theme.glyphs)
    }
}
