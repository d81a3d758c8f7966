/// A label's values, capped: the first `limit` distinct values keep their own series for
/// the life of the program, and every later one is folded into ``other``. What bounds the
/// series a program exports however many places it makes pipelines at (a program making
/// pipelines at 10,000 places exports `limit + 1` locations, not 10,000).
///
/// First come, first kept, never reassigned: a series that appeared stays the same
/// series, so a dashboard's line does not change meaning when a new place shows up.
///
/// ```swift
/// var locations = LabelCap(limit: 2)
/// locations.label("Feed.swift:12")   // "Feed.swift:12"
/// locations.label("Cart.swift:40")   // "Cart.swift:40"
/// locations.label("Menu.swift:7")    // "other"
/// locations.label("Feed.swift:12")   // "Feed.swift:12": kept
/// ```
public struct LabelCap: Sendable, Equatable {
    /// The value every value past the cap is counted under.
    public static let other = "other"
    /// Values that are always their own and take no room: a place not known yet
    /// (`unknown`) must not use up a slot a real place would have had.
    public static let uncounted: Set<String> = [other, "unknown"]

    public let limit: Int
    /// The values that have a series of their own.
    public private(set) var kept: Set<String> = []

    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The label `value` is exported under: itself while there is room (or it already
    /// has its series), ``other`` once the cap is reached. The ``uncounted`` values are
    /// always themselves and take no room, so at most `limit` + 2 values are exported.
    public mutating func label(_ value: String) -> String {
        if kept.contains(value) || Self.uncounted.contains(value) { return value }
        guard kept.count < limit else { return Self.other }
        kept.insert(value)
        return value
    }
}
