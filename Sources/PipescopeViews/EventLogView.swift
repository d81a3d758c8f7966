import PipescopeGraph
import PipescopeModel
import TerminalKit

/// Every event as a row, newest at the bottom: time, whom it happened to (a stage, a
/// task or an owner: ``EventSubject``), kind, and what it carried. Follows the newest
/// event while live; in history it ends at the cursor's event, highlighted. `f` shows
/// only the selected stage's events; one pipeline's tree (Enter) shows only its stages'
/// (``AppState/eventLog``).
public enum EventLogView {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2 else { return }
        let log = state.eventLog
        buffer.putTruncated(header(log, state), x: area.x, y: area.y, maxWidth: area.width, style: theme.dim,
                            glyphs: theme.glyphs)
        let anchor = state.cursor.position ?? state.cursor.log.end
        let events = state.cursor.log.events(endingAt: anchor, count: area.height - 1, among: log.stages)
        let lines = withDrops(events, state: state, log: log).suffix(area.height - 1)
        for (line, item) in lines.enumerated() {
            let y = area.y + 1 + line
            guard let e = item.event else {
                buffer.putTruncated(theme.text(item.gap), x: area.x, y: y, maxWidth: area.width,
                                    style: theme.style(.failed), glyphs: theme.glyphs)
                continue
            }
            let text = "\(Format.time(e.time))  \(EventSubject.name(of: e, in: state))  \(describe(e, theme: theme))"
            buffer.putTruncated(text, x: area.x, y: y, maxWidth: area.width, glyphs: theme.glyphs)
            if state.cursor.position != nil, item.position == anchor {
                buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { $0.reverse = true }
            }
        }
    }

    /// The listed events with a line after each where the probe dropped events
    /// (``DropGaps``): "N events dropped here (the probe's buffer was full)", counting only
    /// the listed pipeline's when the log lists one pipeline or stage. Gaps the cursor has
    /// not reached yet are not shown.
    static func withDrops(_ events: [(position: Int, event: StageEvent)], state: AppState,
                          log: AppState.EventLog) -> [(position: Int, event: StageEvent?, gap: String)] {
        let rows = events.map { (position: $0.position, event: Optional($0.event), gap: "") }
        guard let first = events.first?.event.id, first > 0 else { return rows }
        let gaps = state.dropGapsPassed.drop { $0.after < first }
        guard !gaps.isEmpty else { return rows }
        let root: NodeID? = switch log {
        case .all: nil
        case .pipeline(let root, _): root
        case .stage(let id): state.cursor.graph.pipeline(of: id) ?? state.cursor.liveGraph.pipeline(of: id) ?? id
        }
        var out: [(position: Int, event: StageEvent?, gap: String)] = []
        var next = gaps.startIndex
        for (i, row) in rows.enumerated() {
            out.append(row)
            let upTo = i + 1 < events.count ? events[i + 1].event.id : EventID.max
            while next < gaps.endIndex, gaps[next].after < upTo {
                let gap = gaps[next]
                if root.map({ gap.count(of: $0) > 0 }) ?? true {
                    out.append((position: row.position, event: nil, gap: "⚠ " + gap.line(for: root)))
                }
                next += 1
            }
        }
        return out
    }

    /// Whose events are listed, and what `f` changes that to.
    static func header(_ log: AppState.EventLog, _ state: AppState) -> String {
        let scope = state.page.showsStages ? state.tree.scope : nil
        switch log {
        case .stage(let id): return "only #\(id)  (f: " + (scope.map { "all of pipeline #\($0))" } ?? "all)")
        case .pipeline(let root, _): return "pipeline #\(root) only  (f: selected only)"
        case .all: return "all stages  (f: selected only)"
        }
    }

    /// The pane's title: "Events", and whose when one pipeline is shown alone.
    static func title(_ state: AppState) -> String {
        guard state.page.showsStages, let root = state.tree.scope else { return "Events" }
        return "Events of pipeline #\(root)"
    }

    static func describe(_ e: StageEvent, theme: Theme) -> String {
        switch e.kind {
        case .subscription where e.other != 0 && e.other != e.node: return "subscription (shares #\(e.other)'s)"
        case .request: return "request \(Format.demand(e.demand, theme: theme))"
        case .demand: return "demand +\(Format.demand(e.demand, theme: theme))"
        case .value where !e.text.isEmpty: return "value \(e.text)"
        case .failed: return "failed: \(e.text)"
        case .cancelled: return "cancelled by \(e.cause?.rawValue ?? "downstream")"
        case .forward: return "forwards to #\(e.other)"
        case .adopt: return "found its downstream #\(e.other)"
        case .feeds: return "feeds #\(e.other) through a subject"
        case .owned: return "owned by \(e.text.isEmpty ? "owner #\(e.other)" : "\"\(e.text)\"")"
        case .ownerReleased: return "released"  // the row names the owner (EventSubject)
        case .contractBroken: return "broke its contract: \(e.text)"
        case .delivered: return "its subscriber took \(CellText.duration(e.totalNanos)) (\(CellText.duration(e.selfNanos)) in its own code)"
        case .subscribe, .subscription, .value, .finished, .unknown: return e.kind.word
        }
    }
}
