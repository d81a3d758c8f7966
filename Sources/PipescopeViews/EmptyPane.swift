import PipescopeModel
import TerminalKit

/// What the table and the tree show before there is a pipeline: that the program is
/// still being reached, or that no subscription was made after `Pipescope.start()`.
enum EmptyPane {
    static func render(_ state: AppState, theme: Theme, area: Rect, into buffer: inout ScreenBuffer) {
        let lines = state.session.connection == .connecting
            ? [theme.text("Waiting for the program…")]
            : ["No pipelines yet.", "Subscriptions made after Pipescope.start() appear here."]
        for (i, text) in lines.enumerated() where i < area.height {
            buffer.putTruncated(text, x: area.x + 1, y: area.y + i, maxWidth: area.width - 1,
                                style: theme.dim, glyphs: theme.glyphs)
        }
    }
}
