import NIOConcurrencyHelpers

/// The registry of the probe that is tapping now, for the lifecycle API (bags, tasks,
/// contracts), which is called from user code rather than from OpenCombine's hook.
/// Nil when Pipescope is not running: the API then works without reporting anything.
enum ActiveTap {
    private static let current = NIOLockedValueBox<StageRegistry?>(nil)

    static var registry: StageRegistry? { current.withLockedValue { $0 } }

    static func set(_ registry: StageRegistry) {
        current.withLockedValue { $0 = registry }
    }

    /// Clears the active registry if it is still `registry`.
    static func clear(_ registry: StageRegistry) {
        current.withLockedValue { if $0 === registry { $0 = nil } }
    }
}
