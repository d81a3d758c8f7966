
/// The registry of the probe that is tapping now, for the lifecycle API (bags, tasks,
/// contracts), which is called from user code rather than from OpenCombine's hook.
/// Nil when Pipescope is not running: the API then works without reporting anything.
package enum ActiveTap {
    private static let current = LockedBox<StageRegistry?>(nil)

    static package var registry: StageRegistry? { current.withLockedValue { $0 } }

    static package func set(_ registry: StageRegistry) {
        current.withLockedValue { $0 = registry }
    }

    /// Clears the active registry if it is still `registry`.
    static package func clear(_ registry: StageRegistry) {
        current.withLockedValue { if $0 === registry { $0 = nil } }
    }
}
