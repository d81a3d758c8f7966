import PipescopeModel
import TerminalKit

/// Every key, drawn from ``KeyMap/bindings`` in a box over the middle of the screen, then
/// the marks a tree row can carry and the timeline's.
///
/// Nothing is cut: a line longer than the box wraps, its continuation indented under its
/// description (a hanging indent), and when the lines are more than the box holds, ↑ ↓
/// PgUp PgDn Home End scroll them (``Overlay/offset``), the footer saying which lines are
/// shown. ``page(in:theme:quitting:)`` tells the screen's layout how far a page scrolls,
/// from the same lines the drawing uses.
///
/// ```
/// ┌ Keys ─────────────────────────────────────┐
/// │ Tab    next pane (the arrows act on it:   │
/// │        ↑↓ in the log, ←→ in the timeline  │
/// │        move through history)              │
/// │ ? or Esc closes   ↑↓ PgUp PgDn Home End   │
/// │ scroll 1-19/52                            │
/// ```
public enum HelpOverlay {
    /// The marks a tree row can carry, after the keys.
    static let legend = "marks: ⚠ lint  ≡N shares #N's subscription  ◆ cursor  ▶ next at the gate  ×N group "
        + "(table: N pipelines from one place, → opens)"

    /// Lines besides the scrolled ones and the footer: the box's two borders.
    static let borders = 2

    /// The footer: how to close, and when the help scrolls, the keys that scroll it and the
    /// lines shown (`scroll 1-19/52`); its parts side by side while they fit `width`, one
    /// under the other when not.
    static func footer(width: Int, theme: Theme, scrolling: (first: Int, last: Int, count: Int)?) -> [String] {
        var parts = [KeyMap.hint(.toggleHelp, does: "or " + (KeyMap.label(for: .dismiss) ?? "Esc") + " closes")]
        if let scrolling {
            let arrows = [Action.moveUp, .moveDown].compactMap { KeyMap.label(for: $0)?.split(separator: " ").first }
            parts.append(arrows.joined() + " PgUp PgDn Home End")
            parts.append("scroll \(scrolling.first)-\(scrolling.last)/\(scrolling.count)")
        }
        var lines: [String] = []
        for part in parts.map(theme.text) {
            if let last = lines.last, (last + "   " + part).terminalWidth <= width {
                lines[lines.count - 1] = last + "   " + part
            } else {
                lines += hanging(" " + part, indent: 1, width: width + 1)
            }
        }
        return lines
    }

    /// The help's lines for a box `width` columns wide inside its borders: each key's
    /// label and its description, wrapped under the description; a blank line; the
    /// legends, wrapped under their first word.
    static func lines(width: Int, theme: Theme, quitting: KeyMap.Quitting) -> [(text: String, bold: Int)] {
        let bindings = KeyMap.bindings
        // In a key label → is the Right key, not the flow arrow it means elsewhere.
        let labels = bindings.map {
            theme.text(theme.glyphs.isUnicode ? $0.label : $0.label.replacingOccurrences(of: "→", with: "Right"))
        }
        let labelWidth = (labels.map(\.terminalWidth).max() ?? 4) + 2
        var lines: [(String, Int)] = []
        for (binding, label) in zip(bindings, labels) {
            let help = theme.text(KeyMap.help(of: binding, quitting: quitting))
            let lead = " " + Format.pad(label, labelWidth)
            for (i, part) in hanging(help, indent: lead.count, width: width).enumerated() {
                lines.append(((i == 0 ? lead : "") + part, i == 0 ? lead.count : 0))
            }
        }
        lines.append(("", 0))
        for legend in [theme.text(legend), TimelineView.legend(theme: theme)] {
            let head = legend.prefix { $0 != ":" }.count + 2
            let parts = hanging(String(legend.dropFirst(head)), indent: head + 1, width: width)
            for (i, part) in parts.enumerated() {
                lines.append(((i == 0 ? " " + legend.prefix(head) : "") + part, 0))
            }
        }
        return lines
    }

    /// `text` in lines of `width` columns after an `indent` (the first line's indent is
    /// the caller's lead; the others' are spaces): wrapped between words, never cut.
    static func hanging(_ text: String, indent: Int, width: Int) -> [String] {
        let room = max(8, width - indent - 1)
        let parts = DetailView.wrap(text, width: room, maxLines: Int.max)
        return parts.enumerated().map { i, part in (i == 0 ? "" : String(repeating: " ", count: indent)) + part }
    }

    /// How the help lays out in `area`: its box, its lines, its footer, and whether it
    /// scrolls.
    struct Layout {
        var box: Rect
        var lines: [(text: String, bold: Int)]
        /// Lines on screen at once.
        var room: Int
        var footerLines: Int
        var scrolls: Bool { lines.count > room }

        init(area: Rect, theme: Theme, quitting: KeyMap.Quitting) {
            // As wide as its widest line unwrapped, at most the area.
            let natural = HelpOverlay.lines(width: Int.max / 2, theme: theme, quitting: quitting)
            let width = min(area.width, (natural.map(\.text.terminalWidth).max() ?? 40) + 3)
            lines = HelpOverlay.lines(width: width - 2, theme: theme, quitting: quitting)
            let count = lines.count
            let fits = count + HelpOverlay.borders + HelpOverlay.footer(width: width - 2, theme: theme, scrolling: nil).count
            // Scrolling, the footer is as long as its longest range makes it.
            footerLines = HelpOverlay.footer(width: width - 2, theme: theme,
                                             scrolling: fits <= area.height ? nil : (count, count, count)).count
            let height = min(area.height, count + HelpOverlay.borders + footerLines)
            room = max(0, height - HelpOverlay.borders - footerLines)
            box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        }
    }

    /// How the help scrolls in `area`: the lines shown at once and the lines there are
    /// (equal when it all fits, so it never scrolls).
    public static func page(in area: Rect, theme: Theme,
                            quitting: KeyMap.Quitting = .programKeepsRunning) -> (page: Int, lines: Int) {
        let layout = Layout(area: area, theme: theme, quitting: quitting)
        return layout.scrolls ? (max(1, layout.room), layout.lines.count) : (layout.lines.count, layout.lines.count)
    }

    public static func render(theme: Theme, area: Rect, offset: Int = 0, quitting: KeyMap.Quitting = .programKeepsRunning,
                              into buffer: inout ScreenBuffer) {
        let layout = Layout(area: area, theme: theme, quitting: quitting)
        let box = layout.box
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: "Keys", style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        guard inner.height > 0 else { return }
        let room = layout.room
        let first = layout.scrolls ? min(max(0, offset), layout.lines.count - room) : 0
        for (row, line) in layout.lines.dropFirst(first).prefix(room).enumerated() {
            let y = inner.y + row
            let bold = line.text.prefix(line.bold)
            let x = inner.x + buffer.put(String(bold), x: inner.x, y: y, style: Style(bold: true), maxWidth: inner.width)
            buffer.putTruncated(String(line.text.dropFirst(line.bold)), x: x, y: y, maxWidth: inner.maxX - x,
                                style: line.bold > 0 ? .plain : theme.dim, glyphs: theme.glyphs)
        }
        let footer = footer(width: inner.width, theme: theme,
                            scrolling: layout.scrolls ? (first + 1, min(layout.lines.count, first + room), layout.lines.count) : nil)
        for (i, line) in footer.enumerated() where room + i < inner.height {
            buffer.putTruncated(line, x: inner.x, y: inner.y + room + i, maxWidth: inner.width, style: theme.dim,
                                glyphs: theme.glyphs)
        }
    }
}
