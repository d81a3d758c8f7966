import PipescopeGraph
import PipescopeModel
import TerminalKit

/// Every event as a row, newest at the bottom: its number, time, whom it happened to (a stage, a
/// task or an owner: ``EventSubject``), kind, and what it carried. Follows the newest
/// event while live; in history it ends at the cursor's event, highlighted. `f` shows
/// only the selected stage's pipeline's events, then only the stage's; one pipeline's tree
/// (Enter) shows only its stages' (``AppState/eventLog``).
public enum EventLogView {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard area.height >= 2 else { return }
        let log = state.eventLog
        buffer.putTruncated(header(log, state), x: area.x, y: area.y, maxWidth: area.width, style: theme.dim,
                            glyphs: theme.glyphs)
        let anchor = state.cursor.position ?? state.cursor.log.end
        let events = state.cursor.log.events(endingAt: anchor, count: area.height - 1, among: log.stages)
        let lines = withDrops(events, state: state, log: log).suffix(area.height - 1)
        // Each row starts with the event's number, the one the history line, `e`, explain
        // and exports give it, right-aligned to the widest shown (blank when unnumbered).
        let numberWidth = lines.map { $0.event.map { $0.id == 0 ? 0 : String($0.id).count } ?? 0 }.max() ?? 0
        for (line, item) in lines.enumerated() {
            let y = area.y + 1 + line
            guard let e = item.event else {
                buffer.putTruncated(theme.text(item.gap), x: area.x, y: y, maxWidth: area.width,
                                    style: theme.style(.failed), glyphs: theme.glyphs)
                continue
            }
            var x = area.x
            if numberWidth > 0, area.width > numberWidth + 20 {
                let number = e.id == 0 ? "" : String(e.id)
                buffer.put(String(repeating: " ", count: numberWidth - number.count) + number, x: x, y: y, style: theme.dim)
                x += numberWidth + 1
            }
            let text = "\(Format.time(e.time))  \(EventSubject.name(of: e, in: state))  \(describe(e, theme: theme, in: state))"
            buffer.putTruncated(text, x: x, y: y, maxWidth: area.maxX - x, glyphs: theme.glyphs)
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

    /// Whose events are listed, and what the next `f` lists (``AppState/LogScope``): from
    /// every pipeline's, the selected stage's pipeline's, named, so a crowded log leads to
    /// the one that is not.
    static func header(_ log: AppState.EventLog, _ state: AppState) -> String {
        let scope = state.page.showsStages ? state.tree.scope : nil
        let selected = state.selectedNode?.id
        switch log {
        case .stage(let id):
            return "only #\(id)  (f: " + (scope.map { "all of pipeline #\($0))" } ?? "all)")
        case .pipeline(let root, _):
            return "pipeline #\(root) only  (f: " + (selected.map { "only #\($0))" } ?? "all)")
        case .all:
            guard let selected, let root = state.cursor.graph.pipeline(of: selected) else {
                return "all pipelines  (f on a stage: its pipeline's)"
            }
            return "all pipelines  (f: the selected one, #\(root))"
        }
    }

    /// The pane's title: "Events", and whose when one pipeline is shown alone.
    static func title(_ state: AppState) -> String {
        guard state.page.showsStages, let root = state.tree.scope else { return "Events" }
        return "Events of pipeline #\(root)"
    }

    static func describe(_ e: StageEvent, theme: Theme, in state: AppState? = nil) -> String {
        switch e.kind {
        case .delivered:
            // Which subscriber: the stage downstream, or the pipeline's own (a sink's type).
            let graph = state?.cursor.graph
            let node = graph?[e.node]
            let who = node.map { n in n.parent.map { "#\($0) \(graph?[$0]?.operatorName ?? "?")" } ?? n.subscriber }
                ?? "its subscriber"
            return "\(who) took \(CellText.duration(e.totalNanos)) (\(CellText.duration(e.selfNanos)) in its own code)"
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
        case .subscribe, .subscription, .value, .finished, .unknown: return e.kind.word
        }
    }
}
