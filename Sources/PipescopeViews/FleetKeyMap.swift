import PipescopeModel
import TerminalKit

/// `pipescope top --prometheus`' keys as data: each binding's keys, what it does in the
/// state (``FleetState/Key``) and its word on the keys line. The loop reads ``key(for:)``,
/// ``FleetView`` the hints; the pipelines table's spellings where they mean the same.
///
/// ```swift
/// FleetKeyMap.key(for: .character(">"))   // .sortNext
/// FleetKeyMap.hints                       // ["↑↓ move", "Enter attach", …]
/// ```
public enum FleetKeyMap {
    public struct Binding: Sendable {
        public let keys: [Key]
        public let action: FleetState.Key
        /// Its word on the keys line; nil: not there (a second spelling, a page key).
        public let hint: String?
    }

    public static let bindings: [Binding] = [
        Binding(keys: [.up, .character("k")], action: .up, hint: "↑↓ move"),
        Binding(keys: [.down, .character("j")], action: .down, hint: nil),
        Binding(keys: [.pageUp], action: .pageUp, hint: nil),
        Binding(keys: [.pageDown, .character(" ")], action: .pageDown, hint: nil),
        Binding(keys: [.home, .character("g")], action: .home, hint: nil),
        Binding(keys: [.end, .character("G")], action: .end, hint: nil),
        Binding(keys: [.enter], action: .enter, hint: "Enter attach"),
        Binding(keys: [.character("<")], action: .sortPrevious, hint: nil),
        Binding(keys: [.character(">")], action: .sortNext, hint: "< > sort"),
        Binding(keys: [.character("i")], action: .invertSort, hint: "i invert"),
        Binding(keys: [.character("r")], action: .refresh, hint: "r read now"),
        Binding(keys: [.character("q"), .character("Q"), .escape], action: .quit, hint: "q quit"),
    ]

    /// What `key` does on the fleet's table; nil: nothing.
    public static func key(for key: Key) -> FleetState.Key? {
        bindings.first { $0.keys.contains(key) }?.action
    }

    /// The keys line's words, in order.
    public static var hints: [String] { bindings.compactMap(\.hint) }
}
