import PipescopeModel
import TerminalKit

/// The whole screen: status bar, the tree and detail panes, and the hint bar.
///
/// Wide terminals put the detail beside the tree; narrow ones stack it below. Below
/// ``minimumWidth`` x ``minimumHeight`` the screen says how large it needs to be.
public enum MainScreen {
    public static let minimumWidth = 50
    public static let minimumHeight = 22

    public static func render(_ state: AppState, theme: Theme, into buffer: inout ScreenBuffer) {
        let screen = buffer.bounds
        guard screen.width >= minimumWidth, screen.height >= minimumHeight else {
            renderTooSmall(theme: theme, into: &buffer)
            return
        }
        StatusBar.render(state, theme: theme, area: screen.row(0), into: &buffer)
        HintBar.render(state, theme: theme, area: screen.row(screen.height - 1), into: &buffer)
        let body = Rect(x: 0, y: 1, width: screen.width, height: screen.height - 2)
        let (treeBox, detailBox) = layout(body)
        let count = state.graph.nodes.count
        buffer.drawBox(treeBox, title: "Pipelines (\(count) \(count == 1 ? "stage" : "stages"))", style: theme.border,
                       titleStyle: theme.title, glyphs: theme.glyphs)
        TreeView.render(state, theme: theme, area: treeBox.inset(by: 1), into: &buffer)
        buffer.drawBox(detailBox, title: "Stage", style: theme.border, titleStyle: theme.title, glyphs: theme.glyphs)
        DetailView.render(state, theme: theme, area: detailBox.inset(by: 1), into: &buffer)
        if state.showHelp {
            HelpOverlay.render(theme: theme, area: body, into: &buffer)
        } else if state.showLints {
            LintsOverlay.render(state, theme: theme, area: body, into: &buffer)
        } else if let preview = state.pendingCancel {
            ConfirmCancelOverlay.render(preview, state: state, theme: theme, area: body, into: &buffer)
        }
    }

    /// How many tree rows fit, so paging can move by a screenful.
    public static func treePageSize(width: Int, height: Int) -> Int {
        let body = Rect(x: 0, y: 1, width: width, height: max(0, height - 2))
        return max(1, layout(body).tree.height - 3)
    }

    static func layout(_ body: Rect) -> (tree: Rect, detail: Rect) {
        if body.width >= 110 {
            let split = body.splitHorizontally(at: body.width * 3 / 5)
            return (split.left, split.right)
        }
        // Seven lines of detail (plus borders) when there is room: type, id and thread,
        // status, demand, values, times, and sharing.
        let detailHeight = min(9, max(4, body.height * 2 / 5))
        let split = body.splitVertically(at: body.height - detailHeight)
        return (split.top, split.bottom)
    }

    static func renderTooSmall(theme: Theme, into buffer: inout ScreenBuffer) {
        let lines = [
            "Terminal too small",
            "need \(minimumWidth)x\(minimumHeight), have \(buffer.width)x\(buffer.height)",
            "enlarge the window, or press q",
        ]
        for (i, line) in lines.enumerated() where i < buffer.height {
            buffer.putTruncated(line, x: 0, y: i, maxWidth: buffer.width, style: i == 0 ? theme.title : .plain,
                                glyphs: theme.glyphs)
        }
    }
}
