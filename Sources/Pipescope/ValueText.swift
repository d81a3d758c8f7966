/// Describes values off the hot path, bounded in length.
///
/// `String(describing:)` of a large struct can cost 10 µs or more, so it runs once per
/// stage per flush (the newest value only), never once per value.
enum ValueText {
    static let maxLength = 200

    static func describe(_ value: Any) -> String {
        clip(String(describing: value))
    }

    /// One line, at most ``maxLength`` characters, with an ellipsis when cut.
    static func clip(_ text: String) -> String {
        var line = text.replacingOccurrences(of: "\n", with: "⏎")
        if line.count > maxLength { line = String(line.prefix(maxLength - 1)) + "…" }
        return line
    }
}
