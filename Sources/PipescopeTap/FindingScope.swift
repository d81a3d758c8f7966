import Synchronization

/// The test block a pipeline is made in: `Pipescope.findings { }` (PipescopeTesting) sets
/// it for its body, and the tap reads it when a new pipeline subscribes, so each block's
/// findings are its own pipelines', whatever other tests run at the same time.
///
/// Two sources, read in this order by ``atSubscribe``:
/// - ``current``, a task-local value: it follows the block's task and the tasks it starts
///   (`async let`, task groups, `Task { }`), not `Task.detached` nor work sent to a
///   dispatch queue. Swift Testing's parallel tests each have their own.
/// - ``process``, the process's current test, for a pipeline subscribed where no task-local
///   block is set: XCTest runs one test at a time, and a whole-suite observer
///   (`PipescopeTestObserver`) cannot wrap a synchronous test in a task-local scope, while
///   the test's pipelines may be subscribed on any thread or queue.
///
/// Read once per new pipeline (a root's subscribe), on the subscribing thread: a task-local
/// lookup and, when that is 0, one relaxed atomic load; no lock, no allocation, no user code.
///
/// ```swift
/// FindingScope.$current.withValue(7) {
///     subject.sink { _ in }.store(in: &bag)   // its root's NodeInfo.scope is 7
/// }
/// FindingScope.process.store(9, ordering: .relaxed)
/// queue.async { subject.sink { _ in }.store(in: &bag) }   // 9: no task-local block there
/// ```
package enum FindingScope {
    @TaskLocal package static var current: UInt64 = 0

    /// The process's current test block (0: none), for subscribes outside any task-local one.
    package static let process = Atomic<UInt64>(0)

    /// The block a pipeline subscribed now belongs to: the task's, else the process's.
    @inline(__always)
    package static var atSubscribe: UInt64 {
        let scope = current
        return scope != 0 ? scope : process.load(ordering: .relaxed)
    }
}
