import CPipescopeLocations
import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph

/// What one thread is inside right now, innermost last.
///
/// An operator's `receive(subscriber:)` subscribes its upstream synchronously, and
/// `flatMap`, `catch` and friends subscribe inner publishers while a value or completion
/// is being delivered. The top frame therefore names the parent of a new stage.
/// Confined to its own thread, hence `@unchecked Sendable`, and its stored properties
/// skip the runtime's exclusivity checks (`@exclusivity(unchecked)`): one thread only
/// ever touches them, and the checks cost more than the push and pop they guard.
package final class ThreadFrames: @unchecked Sendable {
    package enum Frame {
        /// Inside the subscribe of `node`, whose subscriber is `subscriber`.
        case subscribing(node: NodeID, subscriber: StageKey)
        /// Delivering to the subscriber of stage `node`; that subscriber belongs to the
        /// operator of stage `owner` (the node's parent; nil when it is a root's sink).
        case delivering(node: NodeID, owner: NodeID?)
        /// A stage Pipescope does not know (subscribed before start): nothing to link to.
        case unknown
        /// Inside a cancel: cancels made from here are its cascade upstream.
        case cancelling
    }

    /// The stack, in a buffer of our own: frames are plain data (no references), so a
    /// push is a store and a pop a decrement, with no copy-on-write checks.
    @exclusivity(unchecked) private var frames: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var capacity = 16
    /// A readable name for the thread: "main", its Thread name, or "worker N".
    let label: String

    private init(label: String) {
        assert(_isPOD(Frame.self), "frames are popped without being deinitialized")
        self.label = label
        frames = .allocate(capacity: capacity)
    }

    deinit { frames.deallocate() }

    @inline(__always)
    package var top: Frame? { depth > 0 ? frames[depth - 1] : nil }

    /// Whether a cancel is already under way on this thread.
    var isCancelling: Bool {
        for i in 0..<depth { if case .cancelling = frames[i] { return true } }
        return false
    }

    @inline(__always)
    func push(_ frame: Frame) {
        if depth == capacity { grow() }
        (frames + depth).initialize(to: frame)
        depth += 1
    }

    @inline(__always)
    func pop() {
        if depth > 0 { depth -= 1 }
    }

    @inline(never)
    private func grow() {
        let bigger = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: frames, count: depth)
        frames.deallocate()
        frames = bigger
        capacity *= 2
    }

    // MARK: - Owners

    /// Root stages (sinks, assigns) subscribed on this thread and not yet stored in a
    /// CancellableBag, newest last: `store(in: bag)` right after `sink` claims them.
    @exclusivity(unchecked) package var unclaimedRoots: [NodeID] = []
    static let unclaimedLimit = 32

    func noteRoot(_ node: NodeID) {
        if unclaimedRoots.count == Self.unclaimedLimit { unclaimedRoots.removeFirst() }
        unclaimedRoots.append(node)
    }

    package func takeRoots() -> [NodeID] {
        defer { unclaimedRoots.removeAll() }
        return unclaimedRoots
    }

    /// The newest unclaimed root, claimed; older ones stay unclaimed.
    package func takeNewestRoot() -> NodeID? {
        unclaimedRoots.popLast()
    }

    /// Greater than zero while an owner is being released on this thread: the cancels it
    /// makes are "by owner".
    @exclusivity(unchecked) package var releasingOwner = 0

    // MARK: - The thread's stack, for capturing call stacks

    /// This thread's stack as [low, high), asked once (``CallStack``'s walk reads only
    /// inside it); `(0, 0)` when the system would not say.
    var stackBounds: (low: UInt, high: UInt) {
        if !stackKnown {
            stackKnown = true
            var low: UInt = 0, high: UInt = 0
            if pipescope_thread_stack(&low, &high) == 0 { stack = (low, high) }
        }
        return stack
    }

    @exclusivity(unchecked) private var stackKnown = false
    @exclusivity(unchecked) private var stack: (low: UInt, high: UInt) = (0, 0)

    // MARK: - Per-thread instance

    private static let counter = ThreadCounter()

    /// This thread's frames: one `pthread_getspecific`. The key's destructor releases
    /// them when the thread exits.
    static package var current: ThreadFrames {
        if let raw = pthread_getspecific(threadKey) {
            return Unmanaged<ThreadFrames>.fromOpaque(raw).takeUnretainedValue()
        }
        return makeCurrent(threadKey)
    }

    /// The slot's key, for callers that keep it (the tap) rather than reach the lazily
    /// made global on every call.
    static var key: pthread_key_t { threadKey }

    /// Runs `body` with this thread's frames, neither retained nor released: the thread
    /// keeps them alive, and `body` cannot outlive the thread.
    @inline(__always)
    static func with<R>(key: pthread_key_t, _ body: (ThreadFrames) -> R) -> R {
        guard let raw = pthread_getspecific(key) else { return body(makeCurrent(key)) }
        return Unmanaged<ThreadFrames>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    @inline(never)
    private static func makeCurrent(_ key: pthread_key_t) -> ThreadFrames {
        let frames = ThreadFrames(label: currentThreadLabel())
        pthread_setspecific(key, Unmanaged.passRetained(frames).toOpaque())
        return frames
    }

    private static func currentThreadLabel() -> String {
        if Thread.isMainThread { return "main" }
        let processName = String(ProcessInfo.processInfo.processName.utf8.prefix(15)) ?? ""
        return userName(Thread.current.name, processName: processName) ?? "worker \(counter.next())"
    }

    /// The thread's name if the program gave it one. Linux keeps 15 bytes of a thread's
    /// name, and libdispatch names its workers after the root queue they first served,
    /// keeping the end: "com.apple.root.default-qos" reads "oot.default-qos", and
    /// ".overcommit" ones "-qos.overcommit". A worker serves any queue, so such a name
    /// says nothing about the program. An unnamed thread reports the process's name.
    static func userName(_ name: String?, processName: String) -> String? {
        guard let name, !name.isEmpty, name != processName else { return nil }
        let dispatchWorker = name.hasPrefix("-") || name.hasSuffix("-qos") || name.hasSuffix(".overcommit")
        return dispatchWorker ? nil : name
    }
}

/// The thread-specific slot of ``ThreadFrames/current``.
private let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { raw in
        guard let raw else { return }
        Unmanaged<ThreadFrames>.fromOpaque(raw).release()
    }
    precondition(status == 0, "pipescope: no thread-specific key left (pthread_key_create: \(status))")
    return key
}()

/// Numbers unnamed threads in the order Pipescope first sees them.
private final class ThreadCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.lock(); defer { lock.unlock() }
        value += 1
        return value
    }
}
