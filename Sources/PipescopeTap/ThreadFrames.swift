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
        /// Delivering an event to the subscriber of a stage (see ``Delivery``).
        case delivering(Delivery)
        /// A stage Pipescope does not know (subscribed before start): nothing to link to.
        case unknown
        /// Inside a cancel, recorded as `event` (0 when it was not recorded): cancels made
        /// from here are its cascade upstream, and are caused by it.
        case cancelling(event: EventID)
    }

    /// A value or completion being delivered to the subscriber of stage `node`; that
    /// subscriber belongs to the operator of stage `owner` (the node's parent; nil when it
    /// is a root's sink).
    package struct Delivery {
        var node: NodeID
        var owner: NodeID?
        /// The event being delivered: what happens inside is caused by it. 0 if dropped.
        var event: EventID
        /// Ticks when the subscriber's code began.
        var start: Int64
        /// Ticks spent in deliveries nested inside this one: the stages downstream.
        var inner: Int64 = 0
        /// ``ThreadFrames/blocked`` when it began: time at the gate is nobody's code.
        var blockedAtStart: Int64
    }

    /// What an event recorded now happened because of.
    package struct Cause {
        /// The nearest delivery or cancel on this thread; 0 for none.
        var event: EventID = 0
        /// The stage whose operator receives that delivery (the stage whose input it
        /// is), when the nearest is a delivery.
        var inputOf: NodeID?
    }

    /// The stack, in a buffer of our own: frames are plain data (no references), so a
    /// push is a store and a pop a decrement, with no copy-on-write checks.
    @exclusivity(unchecked) private var frames: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var capacity = 16
    /// A readable name for the thread: "main", its Thread name, or "worker N".
    let label: String
    /// Its number in the ``ThreadDirectory``, which events record.
    let number: UInt32

    private init(label: String) {
        assert(_isPOD(Frame.self), "frames are popped without being deinitialized")
        self.label = label
        number = ThreadDirectory.register(label)
        frames = .allocate(capacity: capacity)
    }

    deinit {
        frames.deallocate()
        timings.deallocate()
        typeFacts.deallocate()
    }

    /// The facts of the type pairs this thread subscribed lately (no lock to find them).
    let typeFacts = TypeFactsCache()

    @inline(__always)
    package var top: Frame? { depth > 0 ? frames[depth - 1] : nil }

    /// Whether a cancel is already under way on this thread.
    var isCancelling: Bool {
        for i in 0..<depth { if case .cancelling = frames[i] { return true } }
        return false
    }

    /// The cause of an event recorded now: the innermost delivery or cancel, looking
    /// through subscribes (an inner publisher subscribed while delivering emits inside
    /// that delivery); an unknown stage's delivery links to nothing.
    @inline(__always)
    var cause: Cause {
        var i = depth - 1
        while i >= 0 {
            switch frames[i] {
            case .delivering(let d): return Cause(event: d.event, inputOf: d.owner)
            case .cancelling(let event): return Cause(event: event)
            case .unknown: return Cause()
            case .subscribing: i -= 1
            }
        }
        return Cause()
    }

    /// Ticks this thread spent waiting at the gate, since it was first seen.
    @exclusivity(unchecked) var blocked: Int64 = 0

    /// Starts a delivery of `event` to the subscriber of `node`, its subscriber's code
    /// starting at `start` ticks (the time the event was stamped with).
    @inline(__always)
    func beginDelivery(node: NodeID, owner: NodeID?, event: EventID, start: Int64) {
        push(.delivering(Delivery(node: node, owner: owner, event: event, start: start, blockedAtStart: blocked)))
    }

    /// A delivery's time, kept on its thread until the outermost delivery ends and
    /// recorded then, under one lock for them all (``takeTimings()``).
    package struct Timing {
        var node: NodeID
        var event: EventID
        var selfTicks: Int64
        var totalTicks: Int64
    }

    /// Timings not yet recorded: at most ``timingCapacity``.
    @exclusivity(unchecked) private var timings: UnsafeMutablePointer<Timing> = .allocate(capacity: ThreadFrames.timingCapacity)
    @exclusivity(unchecked) private var timingCount = 0
    static let timingCapacity = 32

    /// Ends the delivery on top: pops it, counts its time in the delivery it was nested
    /// in, and keeps its timing (its subscriber's own code, and in all; gate waits
    /// excluded; `keep` false: a completion, not timed itself). Returns whether timings
    /// are due to be recorded: the outermost delivery ended, or the buffer is full.
    @inline(__always)
    func endDelivery(keep: Bool = true) -> Bool {
        guard depth > 0 else { return false }
        depth -= 1
        guard case .delivering(let d) = frames[depth] else { return false }
        let total = max(0, eventTicks() &- d.start &- (blocked &- d.blockedAtStart))
        var outermost = true
        var i = depth - 1
        while i >= 0 {
            if case .delivering(var outer) = frames[i] {
                outer.inner &+= total
                frames[i] = .delivering(outer)
                outermost = false
                break
            }
            i -= 1
        }
        if keep, d.event != 0 {
            (timings + timingCount).initialize(to: Timing(node: d.node, event: d.event,
                                                          selfTicks: max(0, total &- d.inner), totalTicks: total))
            timingCount += 1
        }
        return timingCount > 0 && (outermost || timingCount == Self.timingCapacity)
    }

    /// The timings kept so far, oldest first, handed to `body` and forgotten.
    @inline(__always)
    func takeTimings(_ body: (UnsafeBufferPointer<Timing>) -> Void) {
        body(UnsafeBufferPointer(start: timings, count: timingCount))
        timingCount = 0
    }

    @inline(__always)
    func push(_ frame: Frame) {
        if depth == capacity { grow() }
        (frames + depth).initialize(to: frame)
        depth += 1
    }

    /// Runs `body` as the cancel recorded as `event`: the cancels it sets off upstream
    /// are caused by it (an inspector's cancel, made outside any hook).
    package func cancelling<R>(as event: EventID, _ body: () -> R) -> R {
        push(.cancelling(event: event))
        defer { pop() }
        return body()
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

    /// The stage receiving `Subscriptions.empty` on this thread, while its subscriber's
    /// `receive(subscription:)` runs (0: none): a request on the empty subscription then
    /// is that stage's (``StageRegistry/request(emptySubscriptionOf:demand:)``). One deep:
    /// a receive nested in another's gives the outer's later requests to nobody.
    @exclusivity(unchecked) package var receivingEmpty: NodeID = 0

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
