
/// Readable names for publisher types, computed once per type.
///
/// `String(describing:)` of a generic type costs microseconds; a program has few
/// distinct publisher types, so the names are cached by type identity.
final class TypeNames: @unchecked Sendable {
    struct Names {
        let short: String
        let full: String
        /// How its outputs follow from its inputs, by its short name.
        let causes: CausePolicy
    }

    private let cache = LockedBox<[ObjectIdentifier: Names]>([:])

    func names(of type: Any.Type) -> Names {
        let key = ObjectIdentifier(type)
        if let hit = cache.withLockedValue({ $0[key] }) { return hit }
        let short = Self.shortName(qualified: String(reflecting: type))
        let names = Names(short: short, full: String(describing: type), causes: CausePolicy(operatorName: short))
        cache.withLockedValue { $0[key] = names }
        return names
    }

    /// The operator's name from a type's qualified name: the last component, or the
    /// last two when the last is a generic word like `Publisher`.
    /// "OpenCombine.Publishers.Map<…>" → "Map";
    /// "OpenCombine.Published<Swift.String>.Publisher" → "Published.Publisher";
    /// "Foundation.NotificationCenter.OCombine.Publisher" → "NotificationCenter.Publisher".
    static func shortName(qualified: String) -> String {
        var depth = 0
        var plain = ""
        for ch in qualified {
            if ch == "<" { depth += 1 } else if ch == ">" { depth -= 1 } else if depth == 0 { plain.append(ch) }
        }
        let parts = plain.split(separator: ".").filter { $0 != "OCombine" }
        guard let last = parts.last else { return qualified }
        if ["Publisher", "Subscriber", "Inner"].contains(last), parts.count >= 2 {
            return "\(parts[parts.count - 2]).\(last)"
        }
        return String(last)
    }

    /// The short name of a type written as `String(describing:)` prints it.
    static func shortName(_ described: String) -> String {
        shortName(qualified: described)
    }
}
