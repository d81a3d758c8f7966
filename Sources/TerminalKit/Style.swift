/// How a cell looks: colours and attributes.
///
/// A `nil` colour means the terminal's default. Backends without colour support
/// ignore the colours but keep the attributes.
///
/// ```swift
/// var selected = Style.plain
/// selected.reverse = true
/// ```
public struct Style: Hashable, Sendable {
    /// The text colour, or `nil` for the terminal default.
    public var foreground: Color?
    /// The background colour, or `nil` for the terminal default.
    public var background: Color?
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false

    /// Creates a style; every part defaults to "plain".
    public init(
        foreground: Color? = nil,
        background: Color? = nil,
        bold: Bool = false,
        dim: Bool = false,
        reverse: Bool = false,
        underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// Default colours, no attributes.
    public static let plain = Style()
}
