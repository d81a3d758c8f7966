import NIOConcurrencyHelpers

/// Readable names for publisher types, computed once per type.
///
/// `String(describing:)` of a generic type costs microseconds; a program has few
/// distinct publisher types, so the names are cached by type identity.
final class TypeNames: @unchecked Sendable {
    struct Names { let short: String; let full: String }

    private let cache = NIOLockedValueBox<[ObjectIdentifier: Names]>([:])

    func names(of type: Any.Type) -> Names {
        let key = ObjectIdentifier(type)
        if let hit = cache.withLockedValue({ $0[key] }) { return hit }
        let full = String(describing: type)
        let names = Names(short: Self.shortName(full), full: full)
        cache.withLockedValue { $0[key] = names }
        return names
    }

    /// "Map<PassthroughSubject<Int, Never>, String>" → "Map";
    /// "Publishers.Sequence<…>" → "Sequence".
    static func shortName(_ full: String) -> String {
        let base = full.prefix { $0 != "<" }
        return String(base.split(separator: ".").last ?? base[...])
    }
}
