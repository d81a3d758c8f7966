import PipescopeGraph
import PipescopeModel
import TerminalKit

/// Asks before cancelling, and shows everything the cancel will reach: the stages that
/// share the subscription, the upstream stages it travels to, and the downstream
/// stages that will be orphaned. Long lines wrap rather than lose the stages at their end.
public enum ConfirmCancelOverlay {
    public static func render(_ preview: CancelPreview, state: AppState, theme: Theme, area: Rect,
                              into buffer: inout ScreenBuffer) {
        func names(_ ids: [NodeID]) -> String {
            ids.map { "#\($0) \(state.cursor.graph[$0]?.operatorName ?? "?")" }.joined(separator: ", ")
        }
        let target = state.cursor.graph[preview.target]
        let root = state.pipeline(of: preview.target)
        let pipeline = root.map { root in
            "in pipeline #\(root) " + PipelineName(root: root, in: state.cursor.graph).text
                + (state.cursor.graph.location(of: root).map { "  (\($0.location.short))" } ?? "")
        } ?? ""
        // The target is one of the stages passing its subscription: the others are what
        // it shares with, and a stage that shares with nobody says nothing about sharing.
        let others = preview.sharing.filter { $0 != preview.target }
        var lines: [(String, Style)] = [
            ("Cancel #\(preview.target) \(target?.operatorName ?? "")?", theme.title),
            (theme.text(pipeline), .plain),
            ("", .plain),
            (others.isEmpty ? "cancels its subscription"
                : "cancels its subscription, which it shares with: \(names(others))", .plain),
            (preview.upstream.isEmpty ? "upstream: no live stage for the cancel to reach"
                : "then upstream, in order: \(names(preview.upstream))", .plain),
            (preview.orphaned.isEmpty ? "downstream: no live stage left without a completion"
                : "orphaned (no completion): \(names(preview.orphaned))", theme.style(.cancelled)),
            ("", .plain),
        ]
        // The same words as the hint bar's: what the confirmation layer does with keys.
        lines.append((theme.text(KeyMap.hints(for: .confirmingCancel(preview)).joined(separator: "   ")), theme.dim))
        let width = min(area.width, max(44, (lines.map { $0.0.terminalWidth }.max() ?? 40) + 4))
        // What the cancel reaches is never cut: a long line wraps, indented under itself.
        lines = lines.flatMap { text, style in
            DetailView.wrap(text, width: max(8, width - 4), maxLines: Int.max).enumerated().map { i, part in
                ((i == 0 ? "" : "  ") + part, style)
            }
        }
        let height = min(area.height, lines.count + 2)
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: .blank)
        buffer.drawBox(box, title: "Confirm", style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        let inner = box.inset(by: 1)
        for (i, (text, style)) in lines.prefix(inner.height).enumerated() {
            buffer.putTruncated(" " + text, x: inner.x, y: inner.y + i, maxWidth: inner.width, style: style, glyphs: theme.glyphs)
        }
    }
}
