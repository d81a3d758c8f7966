/// The test block a task is in: `Pipescope.findings { }` (PipescopeTesting) sets it for
/// its body, and the tap reads it when a new pipeline subscribes, so each block's
/// findings are its own pipelines', whatever other tests run at the same time.
///
/// A task-local value: it follows the block's task and the tasks it starts (`async let`,
/// task groups, `Task { }`), not `Task.detached` nor work sent to a dispatch queue. Read
/// once per new pipeline (a root's subscribe), on the subscribing thread: a task-local
/// lookup, no lock, no allocation, no user code.
///
/// ```swift
/// FindingScope.$current.withValue(7) {
///     subject.sink { _ in }.store(in: &bag)   // its root's NodeInfo.scope is 7
/// }
/// ```
package enum FindingScope {
    @TaskLocal package static var current: UInt64 = 0
}
