/// One of the eight standard terminal colours.
///
/// The raw value is the ANSI colour number, so `Color.red.rawValue == 1`.
///
/// ```swift
/// let warning = Style(foreground: .yellow, bold: true)
/// ```
public enum Color: UInt8, Sendable, Hashable, CaseIterable {
    case black, red, green, yellow, blue, magenta, cyan, white
}
