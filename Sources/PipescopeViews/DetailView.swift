import PipescopeGraph
import PipescopeModel
import TerminalKit

/// The selected stage in full: types, thread, times, demand, values, and how it ended.
public enum DetailView {
    public static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        guard !area.isEmpty else { return }
        guard let node = state.selectedNode else {
            buffer.putTruncated("Select a stage to see it here.", x: area.x, y: area.y, maxWidth: area.width,
                                style: theme.dim, glyphs: theme.glyphs)
            return
        }
        var lines: [(String, Style)] = [
            (node.publisherType, theme.title),
            ("#\(node.id) → \(node.subscriber)", .plain),
            ("thread \(node.thread)  created \(Format.time(node.createdNanos))", .plain),
            ("status \(theme.glyph(node.status)) \(statusText(node))", theme.style(node.status)),
            ("demand requested \(Format.demand(node.requested, theme: theme))  outstanding \(Format.demand(node.outstanding, theme: theme))", .plain),
            ("values \(node.values)  last \(node.lastValue ?? "—")", .plain),
        ]
        if let owner = node.subscriptionOwner, let o = state.graph[owner] {
            lines.append(("shares the subscription of #\(owner) \(o.operatorName)", theme.dim))
        } else if !node.sharers.isEmpty {
            lines.append(("its subscription passes through #" + node.sharers.map(String.init).joined(separator: ", #"), theme.dim))
        }
        for (i, (text, style)) in lines.prefix(area.height).enumerated() {
            buffer.putTruncated(text, x: area.x, y: area.y + i, maxWidth: area.width, style: style, glyphs: theme.glyphs)
        }
    }

    static func statusText(_ node: NodeSummary) -> String {
        var text = node.status.rawValue
        if let cause = node.cause { text += " by \(cause.rawValue)" }
        if let ended = node.endedNanos { text += " at \(Format.time(ended))" }
        if let error = node.error { text += ": \(error)" }
        return text
    }
}
