import PipescopeModel
import TerminalKit

/// The top line: what is attached, whether it is connected, the event rate and drops.
public enum StatusBar {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard !area.isEmpty else { return }
        let bar = Style(reverse: true)
        buffer.fill(area.row(0), with: Cell(" ", style: bar))
        var x = area.x
        let arrow = theme.glyphs.isUnicode ? "▸" : ">"
        var target = " pipescope \(arrow) \(state.targetName)"
        if let pid = state.pid { target += " (pid \(pid))" }
        x += buffer.put(target + "  ", x: x, y: area.y, style: Style(bold: true, reverse: true), maxWidth: area.maxX - x)

        let (word, style): (String, Style) = {
            if let cursor = state.cursor {
                return ("HISTORY \(cursor)/\(state.timeline.end)", Style(foreground: theme.colors ? .magenta : nil, bold: true, reverse: true))
            }
            switch state.connection {
            case .connecting: return ("CONNECTING", Style(foreground: theme.colors ? .yellow : nil, reverse: true))
            case .connected where state.paused:
                return ("PAUSED \(state.pending.count) waiting", Style(foreground: theme.colors ? .yellow : nil, bold: true, reverse: true))
            case .connected: return ("LIVE", Style(foreground: theme.colors ? .green : nil, bold: true, reverse: true))
            case .disconnected: return ("DISCONNECTED", Style(foreground: theme.colors ? .red : nil, bold: true, reverse: true))
            case .replay: return ("REPLAY", Style(foreground: theme.colors ? .cyan : nil, bold: true, reverse: true))
            }
        }()
        x += buffer.put(word, x: x, y: area.y, style: style, maxWidth: area.maxX - x)
        let skipped = state.skippedEvents > 0 ? "  skipped \(state.skippedEvents)" : ""
        var stats = "  \(Format.rate(state.rate.perSecond))  dropped \(state.graph.dropped)\(skipped)  "
        if case .replay(let file) = state.connection { stats = "  \(file)  dropped \(state.graph.dropped)\(skipped)  " }
        x += buffer.put(stats, x: x, y: area.y, style: bar, maxWidth: area.maxX - x)
        let help = "? help "
        if area.maxX - x >= help.count {
            buffer.put(help, x: area.maxX - help.count, y: area.y, style: bar)
        }
    }
}

/// The bottom line: the most useful keys, from the keymap; or why the connection ended.
public enum HintBar {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard !area.isEmpty else { return }
        if case .disconnected(let why) = state.connection {
            let text = theme.text(" disconnected: \(why)  (what was seen stays on screen; q quits)")
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width,
                                style: Style(foreground: theme.colors ? .red : nil, bold: true), glyphs: theme.glyphs)
            return
        }
        if let notice = state.notice {
            let style = Style(foreground: theme.colors ? (notice.isError ? .red : .green) : nil, bold: notice.isError)
            buffer.putTruncated(" " + theme.text(notice.text), x: area.x, y: area.y, maxWidth: area.width,
                                style: style, glyphs: theme.glyphs)
            return
        }
        if state.editingFilter {
            let text = " /" + state.filter + (theme.glyphs.isUnicode ? "█" : "_")
                + "   \(state.matches.count) match\(state.matches.count == 1 ? "" : "es")  Enter keep  Esc clear"
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width, style: Style(bold: true), glyphs: theme.glyphs)
            return
        }
        if let cursor = state.cursor {
            var text = " history"
            if let event = state.timeline.event(at: cursor) {
                let op = state.graph[event.node]?.operatorName ?? "?"
                text += theme.text(" · event \(cursor): \(Format.word(for: event.kind)) at #\(event.node) \(op), \(Format.time(event.time))")
            } else {
                text += " · before the first event kept"
            }
            text += "  [ ] step  { } 50  G live"
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width,
                                style: Style(foreground: theme.colors ? .magenta : nil, bold: true), glyphs: theme.glyphs)
            return
        }
        if state.paused {
            var text = " paused"
            if let next = state.nextPending {
                let op = state.graph[next.node]?.operatorName ?? "?"
                let which = state.pending.count > 1 ? " [\(min(state.chosenPending, state.pending.count - 1) + 1)/\(state.pending.count)]" : ""
                text += theme.text(" · next\(which): #\(next.node) \(op) \(Format.word(for: next.kind)) on \(next.thread)")
                if state.pending.count > 1 { text += "  > choose" }
            } else {
                text += " · no thread has reached an event yet"
            }
            text += "  n step  space resume"
            if state.countPrefix > 0 { text += "  count \(state.countPrefix)" }
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width,
                                style: Style(foreground: theme.colors ? .yellow : nil, bold: true), glyphs: theme.glyphs)
            return
        }
        let hints = theme.text(KeyMap.hints(for: state.focus).joined(separator: "  "))
        buffer.putTruncated(" " + hints, x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)
    }
}
