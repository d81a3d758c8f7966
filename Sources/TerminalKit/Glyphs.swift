/// The characters used for boxes, tree folds and statuses, in Unicode or plain ASCII.
///
/// Pick ``unicode`` when the terminal's locale is UTF-8, otherwise ``ascii``.
///
/// ```swift
/// let glyphs: Glyphs = terminal.isUnicode ? .unicode : .ascii
/// buffer.put(glyphs.active, x: 2, y: 1)
/// ```
public struct Glyphs: Sendable {
    public let horizontal: Character
    public let vertical: Character
    public let topLeft: Character
    public let topRight: Character
    public let bottomLeft: Character
    public let bottomRight: Character
    /// `├`: a horizontal divider meeting the left edge.
    public let teeLeft: Character
    /// `┤`: a horizontal divider meeting the right edge.
    public let teeRight: Character
    /// A tree node whose children are hidden.
    public let folded: String
    /// A tree node whose children are shown.
    public let unfolded: String
    /// A tree node without children.
    public let leaf: String
    public let active: String
    public let finished: String
    public let failed: String
    public let cancelled: String
    public let subscribing: String
    /// Marks text cut short.
    public let ellipsis: String
    /// True for the Unicode set.
    public let isUnicode: Bool

    /// Box drawing and symbols for UTF-8 terminals.
    public static let unicode = Glyphs(
        horizontal: "─", vertical: "│",
        topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        teeLeft: "├", teeRight: "┤",
        folded: "▸", unfolded: "▾", leaf: " ",
        active: "●", finished: "✓", failed: "✗", cancelled: "⊘", subscribing: "○",
        ellipsis: "…", isUnicode: true
    )

    /// Plain ASCII for terminals without UTF-8.
    public static let ascii = Glyphs(
        horizontal: "-", vertical: "|",
        topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        teeLeft: "+", teeRight: "+",
        folded: "+", unfolded: "-", leaf: " ",
        active: "*", finished: "v", failed: "x", cancelled: "/", subscribing: "o",
        ellipsis: "~", isUnicode: false
    )
}
