/// One column of one line of the screen: a character and its style.
///
/// A character that is two columns wide (East Asian wide, emoji) occupies its own
/// cell plus a ``continuation`` cell to its right, which backends do not draw.
///
/// ```swift
/// buffer[0, 0] = Cell("A", style: Style(bold: true))
/// ```
public struct Cell: Hashable, Sendable {
    /// The grapheme shown in this cell.
    public var character: Character
    /// How the character is drawn.
    public var style: Style

    /// Creates a cell; by default a plain space.
    public init(_ c: Character = " ", style: Style = .plain) {
        self.character = c
        self.style = style
    }

    /// A plain space.
    public static let blank = Cell()

    /// The marker character of a continuation cell. It is a control character, which
    /// `ScreenBuffer.put` never writes, so it cannot come from text.
    static let continuationCharacter: Character = "\u{0}"

    /// The right half of a two-column character. Backends skip it; `lines()` drops it.
    public static let continuation = Cell(continuationCharacter)

    /// True for the right half of a two-column character.
    public var isContinuation: Bool { character == Cell.continuationCharacter }
}
