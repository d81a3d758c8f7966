import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The top line: what is attached, whether it is connected (and read-only), the event rate
/// and drops.
public enum StatusBar {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard !area.isEmpty else { return }
        let bar = Style(reverse: true)
        buffer.fill(area.row(0), with: Cell(" ", style: bar))
        var x = area.x
        let arrow = theme.glyphs.isUnicode ? "▸" : ">"
        // An earlier run on screen is named as it was: its own pid.
        let run = state.runs.viewing.map { state.runs.earlier[$0] }
        var target = " pipescope \(arrow) \(run?.name ?? state.session.targetName)"
        if let pid = run?.pid ?? state.session.pid { target += " (pid \(pid))" }
        x += buffer.put(target + "  ", x: x, y: area.y, style: Style(bold: true, reverse: true), maxWidth: area.maxX - x)

        let (word, style): (String, Style) = {
            if let viewing = state.runs.viewing {
                let run = state.runs.earlier[viewing]
                let ended = run.endedAt.map { " ENDED \(Format.time($0))" } ?? " ENDED"
                let at = state.cursor.position.map { " · HISTORY \($0)/\(state.cursor.log.end)" } ?? ""
                return ("RUN \(state.runs.shown)/\(state.runs.count)\(ended)\(at)",
                        Style(foreground: theme.colors ? .magenta : nil, bold: true, reverse: true))
            }
            if let cursor = state.cursor.position {
                let ended = state.session.endedAt.map { " · ENDED \(Format.time($0))" } ?? ""
                return ("HISTORY \(cursor)/\(state.cursor.log.end)\(ended)", Style(foreground: theme.colors ? .magenta : nil, bold: true, reverse: true))
            }
            switch state.session.connection {
            case .connecting: return ("CONNECTING", Style(foreground: theme.colors ? .yellow : nil, reverse: true))
            case .connected where state.session.paused:
                // How long, from when the gate closed (a probe that says it), by the
                // inspector's clock: a pause is no wait of the program's (``PauseLog``).
                let since = state.cursor.liveGraph.pauses.spans.last.flatMap { $0.toNanos == .max ? $0.fromNanos : nil }
                let held = since.map { " " + CellText.age(max(0, state.timeline.now - $0)) + " ·" } ?? ""
                return ("PAUSED\(held) \(state.session.pending.count) waiting",
                        Style(foreground: theme.colors ? .yellow : nil, bold: true, reverse: true))
            case .connected: return ("LIVE", Style(foreground: theme.colors ? .green : nil, bold: true, reverse: true))
            case .disconnected:
                let when = state.session.endedAt.map { " \(Format.time($0))" } ?? ""
                return ("ENDED\(when)", Style(foreground: theme.colors ? .red : nil, bold: true, reverse: true))
            case .replay: return ("REPLAY", Style(foreground: theme.colors ? .cyan : nil, bold: true, reverse: true))
            }
        }()
        x += buffer.put(word, x: x, y: area.y, style: style, maxWidth: area.maxX - x)
        if state.runs.viewing == nil, !state.runs.earlier.isEmpty {
            x += buffer.put(" · run \(state.runs.shown)/\(state.runs.count)", x: x, y: area.y,
                            style: Style(bold: true, reverse: true), maxWidth: area.maxX - x)
        }
        // Read-only is said beside the mode it qualifies, not only when a key is refused.
        if state.session.readOnly, !state.session.isReplay {
            x += buffer.put(theme.text(" · read-only"), x: x, y: area.y, style: Style(bold: true, reverse: true),
                            maxWidth: area.maxX - x)
        }
        let skipped = state.session.skippedEvents > 0 ? "  skipped \(state.session.skippedEvents)" : ""
        var stats = "  \(Format.rate(state.session.rate.perSecond))  dropped \(state.cursor.graph.dropped)\(skipped)  "
        if case .replay(let file) = state.session.connection {
            // A replay is read while shown: how far, until it is all read.
            // Followed (`--follow`): more comes while its writer writes, as `tail -f`.
            let reading = state.session.following ? "  following: being written"
                : state.session.reading.map { "  reading \(megabytes($0.bytes)) of \(megabytes($0.of)) MB" } ?? ""
            stats = "  \(file)\(reading)  dropped \(state.cursor.graph.dropped)\(skipped)  "
        }
        // History on disk: how much, and where it starts when the disk budget evicted the oldest.
        let log = state.cursor.log
        if log.spill != nil || log.spillFailure != nil {
            if log.spilledBytes > 0 { stats += "disk \(megabytes(Int(log.spilledBytes))) MB  " }
            if log.start > 0 { stats += "history from event \(log.firstID.map(String.init) ?? String(log.start + 1))  " }
        }
        x += buffer.put(stats, x: x, y: area.y, style: bar, maxWidth: area.maxX - x)
        let help = KeyMap.ownHint(.toggleHelp, or: "help") + " "
        if area.maxX - x >= help.count {
            buffer.put(help, x: area.maxX - help.count, y: area.y, style: bar)
        }
    }
}

/// `bytes` in megabytes with one decimal under 10 (status-line figures).
private func megabytes(_ bytes: Int) -> String {
    let tenths = (bytes * 10 + 524_288) / 1_048_576
    return tenths < 100 ? "\(tenths / 10).\(tenths % 10)" : String((tenths + 5) / 10)
}

/// The bottom line: the keys that act now, from the keymap; or why the connection ended.
///
/// A layer that keeps the keyboard (help, warnings, a confirmation, the filter being
/// typed) has the line to itself, so it never advertises keys that would do nothing.
public enum HintBar {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard !area.isEmpty else { return }
        switch state.layer {
        case .browsing:
            renderBrowsing(state, theme: theme, area: area, into: &buffer)
        case .filtering:
            let text = " /" + state.tree.filter + (theme.glyphs.isUnicode ? "█" : "_")
                + "   \(state.tree.matches.count) match\(state.tree.matches.count == 1 ? "" : "es")  "
                + KeyMap.filterHints.joined(separator: "  ")
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width, style: Style(bold: true), glyphs: theme.glyphs)
        case .help, .warnings, .confirmingCancel, .explaining:
            renderLayerKeys(state, theme: theme, area: area, into: &buffer)
        }
    }

    /// The keys the open overlay acts on; after a key it ignored, which key and why first.
    static func renderLayerKeys(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let keys = KeyMap.hints(for: state.layer).joined(separator: "  ")
        guard let ignored = state.layer.overlay?.ignoredKey else {
            buffer.putTruncated(" " + theme.text(keys), x: area.x, y: area.y, maxWidth: area.width, style: theme.dim,
                                glyphs: theme.glyphs)
            return
        }
        let key = KeyMap.label(for: ignored) ?? "that key"
        let open = state.layer.isHelp ? "the help is open"
            : state.layer.isExplaining ? "the explanation is open" : "the warnings are open"
        let text = " \(key) does nothing while \(open)  " + keys
        buffer.putTruncated(theme.text(text), x: area.x, y: area.y, maxWidth: area.width,
                            style: Style(foreground: theme.colors ? .red : nil, bold: true), glyphs: theme.glyphs)
    }

    static func renderBrowsing(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        if let notice = state.session.notice {
            let style = Style(foreground: theme.colors ? (notice.isError ? .red : .green) : nil, bold: notice.isError)
            // While paused, what waits next leads the line: stepping is read here (the
            // waiting stage's row may be off screen), and a long notice is cut, not it.
            let next = state.session.paused && state.cursor.position == nil ? nextWaiting(state, theme: theme) + " ·" : ""
            // `? help` keeps its place at the right: a long notice is cut before it.
            let help = " " + KeyMap.ownHint(.toggleHelp, or: "help") + " "
            let room = area.width > help.count + 20 ? area.width - help.count : area.width
            buffer.putTruncated(next + " " + theme.text(notice.text), x: area.x, y: area.y, maxWidth: room,
                                style: style, glyphs: theme.glyphs)
            if room < area.width { buffer.put(help, x: area.x + room, y: area.y, style: theme.dim) }
            return
        }
        if let cursor = state.cursor.position {
            var text = " history"
            if let event = state.cursor.log.event(at: cursor) {
                let subject = EventSubject.name(of: event, in: state)
                let what: String
                switch event.kind {
                case .ownerReleased: what = "\(subject) released"
                case .unknown, .subscribe, .subscription, .request, .value, .demand, .finished, .failed, .cancelled,
                     .forward, .adopt, .feeds, .owned, .contractBroken, .delivered:
                    what = "\(event.kind.word) at \(subject)"
                }
                text += theme.text(" · event \(event.id): \(what), \(Format.time(event.time))")
            } else {
                // Nothing evicted (history spills to disk): the graph as it was on attaching,
                // or at a recording's start; else the oldest kept is later than that.
                if state.cursor.log.start > 0 {
                    text += " · before the first event kept"
                } else {
                    switch state.session.historyOrigin {
                    case .attach: text += " · before the first event: the graph as it began"
                    case .programStart: text += " · before the first event: the program's start (its flight recorder)"
                    case .flightRecorder(let oldest):
                        text += " · before the first event: the flight recorder's oldest, \(Format.time(oldest))"
                    }
                }
            }
            text += "  " + KeyMap.historyHints.joined(separator: "  ")
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width,
                                style: Style(foreground: theme.colors ? .magenta : nil, bold: true), glyphs: theme.glyphs)
            return
        }
        if case .disconnected(let why) = state.session.connection {
            // The keys first: at 80 columns the reason is what gets cut (the top line
            // already says ENDED).
            let waiting = state.session.waitingFor.map { " waiting for \($0) to start again ·" } ?? ""
            let text = theme.text("\(waiting) " + KeyMap.endedHints(waiting: state.session.waitingFor != nil)
                .joined(separator: "  ") + " · ended: \(why)")
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width,
                                style: Style(foreground: theme.colors ? .red : nil, bold: true), glyphs: theme.glyphs)
            return
        }
        if state.session.paused {
            var text = " paused ·" + nextWaiting(state, theme: theme)
            if state.session.pending.count > 1 { text += "  " + KeyMap.chooseHint }
            text += "  " + KeyMap.pausedHints.joined(separator: "  ")
            if state.session.countPrefix > 0 { text += "  count \(state.session.countPrefix)" }
            buffer.putTruncated(text, x: area.x, y: area.y, maxWidth: area.width,
                                style: Style(foreground: theme.colors ? .yellow : nil, bold: true), glyphs: theme.glyphs)
            return
        }
        var keys = state.page == .table ? KeyMap.tableHints : KeyMap.hints(for: state.focus)
        if state.page == .timeline { keys = Array(keys.prefix(6)) + [KeyMap.hint(.toggleTimeline, does: "tree")] }
        if state.page == .tree, state.tree.scope != nil, state.focus == .tree {
            keys = keys.dropLast() + [KeyMap.hint(.dismiss, does: "table")]
        }
        let hints = theme.text(keys.joined(separator: "  "))
        buffer.putTruncated(" " + hints, x: area.x, y: area.y, maxWidth: area.width, style: theme.dim, glyphs: theme.glyphs)
    }

    /// " next [1/3]: #34 PassthroughSubject value on main", or that nothing waits yet.
    static func nextWaiting(_ state: AppState, theme: Theme) -> String {
        guard let next = state.session.nextPending else { return " no thread has reached an event yet" }
        let count = state.session.pending.count
        let which = count > 1 ? " [\(min(state.session.chosenPending, count - 1) + 1)/\(count)]" : ""
        let subject = EventSubject.name(of: StageEvent(next.kind, node: next.node, time: 0), in: state)
        return theme.text(" next\(which): \(subject) \(next.kind.word) on \(next.thread)")
    }
}
