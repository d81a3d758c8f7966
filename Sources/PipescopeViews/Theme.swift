import PipescopeGraph
import TerminalKit

/// How the screen looks on this terminal: glyphs (UTF-8 or ASCII) and whether colour
/// is available. Without colour, status is still told apart by glyph, word and dimming.
public struct Theme: Sendable {
    public var glyphs: Glyphs
    public var colors: Bool

    public init(glyphs: Glyphs, colors: Bool) {
        self.glyphs = glyphs
        self.colors = colors
    }

    public static let plainUnicode = Theme(glyphs: .unicode, colors: false)
    public static let plainASCII = Theme(glyphs: .ascii, colors: false)

    public func glyph(_ status: NodeStatus) -> String {
        switch status {
        case .subscribing: return glyphs.subscribing
        case .active: return glyphs.active
        case .finished: return glyphs.finished
        case .failed: return glyphs.failed
        case .cancelled: return glyphs.cancelled
        }
    }

    /// A stage's status glyph: a cancel says by whom, as its timeline lane's end does
    /// (`⊘` from downstream, `⊗` by the inspector, `⌂` by its owner; ASCII has one, `/`).
    public func glyph(of node: NodeSummary) -> String {
        guard node.status == .cancelled, glyphs.isUnicode else { return glyph(node.status) }
        return TimelineView.ending(.cancelled, node.cause, unicode: true)
    }

    /// A group's status glyph: `status` (theirs in common), and when they were all
    /// cancelled by the same hand, that cancel's glyph (``glyph(of:)``).
    public func glyph(_ status: NodeStatus, of stages: [NodeSummary]) -> String {
        guard status == .cancelled, let first = stages.first,
              stages.allSatisfy({ $0.status == .cancelled && $0.cause == first.cause }) else { return glyph(status) }
        return glyph(of: first)
    }

    public func style(_ status: NodeStatus) -> Style {
        switch status {
        case .subscribing: return Style(foreground: colors ? .yellow : nil)
        case .active: return Style(foreground: colors ? .green : nil)
        case .finished: return Style(foreground: colors ? .blue : nil, dim: !colors)
        case .failed: return Style(foreground: colors ? .red : nil, bold: true)
        case .cancelled: return Style(foreground: colors ? .magenta : nil, dim: !colors)
        }
    }

    public var unlimited: String { glyphs.isUnicode ? "∞" : "inf" }

    /// `text` as this terminal can show it: on ASCII terminals the few symbols the
    /// screen uses become words or ASCII look-alikes.
    public func text(_ text: String) -> String {
        guard !glyphs.isUnicode else { return text }
        var out = text
        for (symbol, ascii) in Self.asciiForms { out = out.replacingOccurrences(of: symbol, with: ascii) }
        return out
    }

    private static let asciiForms: [(String, String)] = [
        ("↑↓", "up/down"), ("←→", "left/right"), ("waits ↑", "waits ^"), ("↑", "Up"), ("↓", "Down"), ("←", "Left"),
        ("→", "->"), ("↗", "^"), ("⚠", "!"), ("▶", ">"), ("◆", "*"), ("—", "-"), ("…", "..."), ("▸", ">"), ("◂", "<"), ("∞", "inf"), ("≡", "="), ("‖", "||"), ("·", "."), ("⌂", "@"),
        ("×", "x"),
    ]
    public var title: Style { Style(bold: true) }
    public var border: Style { Style(foreground: colors ? .cyan : nil) }
    public var dim: Style { Style(dim: true) }
    public var selected: Style { Style(reverse: true) }
}
