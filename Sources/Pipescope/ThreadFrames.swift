import Foundation
import NIOPosix
@preconcurrency import OpenCombine

/// What one thread is inside right now, innermost last.
///
/// An operator's `receive(subscriber:)` subscribes its upstream synchronously, and
/// `flatMap`, `catch` and friends subscribe inner publishers while a value or completion
/// is being delivered. The top frame therefore names the parent of a new stage.
/// Confined to its own thread, hence `@unchecked Sendable`.
final class ThreadFrames: @unchecked Sendable {
    enum Frame {
        /// Inside the subscribe of `node`, whose subscriber is `subscriber`.
        case subscribing(node: NodeIDValue, subscriber: StageKey)
        /// Delivering to the subscriber of stage `node`; that subscriber belongs to the
        /// operator of stage `owner` (the node's parent; nil when it is a root's sink).
        case delivering(node: NodeIDValue, owner: NodeIDValue?)
        /// A stage Pipescope does not know (subscribed before start): nothing to link to.
        case unknown
        /// Inside a cancel: cancels made from here are its cascade upstream.
        case cancelling
    }

    private(set) var stack: [Frame] = []
    /// A readable name for the thread: "main", its Thread name, or "worker N".
    let label: String

    private init(label: String) {
        self.label = label
        stack.reserveCapacity(16)
    }

    var top: Frame? { stack.last }

    /// Whether a cancel is already under way on this thread.
    var isCancelling: Bool {
        stack.contains { if case .cancelling = $0 { return true } else { return false } }
    }

    @inline(__always) func push(_ frame: Frame) { stack.append(frame) }
    @inline(__always) func pop() { _ = stack.popLast() }

    // MARK: - Owners

    /// Root stages (sinks, assigns) subscribed on this thread and not yet stored in a
    /// CancellableBag, newest last: `store(in: bag)` right after `sink` claims them.
    var unclaimedRoots: [NodeIDValue] = []
    static let unclaimedLimit = 32

    func noteRoot(_ node: NodeIDValue) {
        if unclaimedRoots.count == Self.unclaimedLimit { unclaimedRoots.removeFirst() }
        unclaimedRoots.append(node)
    }

    func takeRoots() -> [NodeIDValue] {
        defer { unclaimedRoots.removeAll() }
        return unclaimedRoots
    }

    /// Greater than zero while an owner is being released on this thread: the cancels it
    /// makes are "by owner".
    var releasingOwner = 0

    // MARK: - Per-thread instance

    private static let slot = ThreadSpecificVariable<ThreadFrames>()
    private static let counter = ThreadCounter()

    static var current: ThreadFrames {
        if let frames = slot.currentValue { return frames }
        let frames = ThreadFrames(label: currentThreadLabel())
        slot.currentValue = frames
        return frames
    }

    private static func currentThreadLabel() -> String {
        if Thread.isMainThread { return "main" }
        // libdispatch's workers carry internal names like "-qos.overcommit", and an
        // unnamed thread reports the process name cut to 15 bytes: neither is a name.
        let processName = String(ProcessInfo.processInfo.processName.utf8.prefix(15)) ?? ""
        if let name = Thread.current.name, !name.isEmpty, !name.hasPrefix("-"), name != processName {
            return name
        }
        return "worker \(counter.next())"
    }
}

typealias NodeIDValue = UInt64

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
