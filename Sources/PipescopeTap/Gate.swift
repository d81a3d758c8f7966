import Foundation
import PipescopeGraph
import Synchronization

/// Pauses the program's pipelines on request, and releases them one event at a time.
///
/// While open, a tap callback pays one atomic load. While paused, a thread that reaches
/// a value or completion callback waits there, before the event is delivered, and is
/// listed as pending. `step(n)` releases the oldest `n` waiting events, at most as many
/// as wait (or, when none waits, lets the next `n` arrivals through); each released thread runs until its next callback and waits
/// again. Pipescope's own threads never reach a callback, so they are never gated.
///
/// The gate opens by itself when the inspector that paused it leaves, and when nobody
/// has touched it for `deadline` seconds, so a program is never left frozen.
package final class Gate: @unchecked Sendable {
    private let paused = Atomic<Bool>(false)
    private let condition = NSCondition()
    private var credits = 0
    /// Waiting events the user chose to release, out of turn.
    private var chosen = Set<UInt64>()
    private var waiting: [PendingEvent] = []
    private var nextTicket: UInt64 = 1
    private var touched = Date()
    private var owner: ObjectIdentifier?
    private var resumedBecause = ""
    /// When the gate closed for the pause under way (0: open).
    private var closedAtNanos: Int64 = 0
    /// The last pause that ended, until the next ``state()`` reports it.
    private var endedPause: PauseInterval?
    /// Changes whenever what an inspector should see changes.
    private(set) var version: UInt64 = 0
    /// Seconds without a pause or step before the gate opens by itself.
    package let deadline: Double

    package init(deadline: Double) {
        self.deadline = deadline
    }

    package var isPaused: Bool { paused.load(ordering: .acquiring) }

    // MARK: - Threads of the program

    /// Called before a value or completion is delivered; returns at once when open.
    @inline(__always)
    /// Returns the ticks it held the thread (0 when open): a delivery's timing leaves
    /// them out.
    @discardableResult
    func pass(node: @autoclosure () -> NodeID?, kind: EventKind, thread: @autoclosure () -> String) -> Int64 {
        guard paused.load(ordering: .relaxed) else { return 0 }
        let start = eventTicks()
        wait(node: node() ?? 0, kind: kind, thread: thread())
        return max(0, eventTicks() &- start)
    }

    private func wait(node: NodeID, kind: EventKind, thread: String) {
        condition.lock()
        defer { condition.unlock() }
        guard paused.load(ordering: .relaxed) else { return }
        if credits > 0, waiting.isEmpty {
            credits -= 1
            version &+= 1
            return
        }
        let pending = PendingEvent(ticket: nextTicket, node: node, kind: kind, thread: thread,
                                   sinceNanos: Int64(Date().timeIntervalSince1970 * 1e9))
        nextTicket += 1
        waiting.append(pending)
        version &+= 1
        while paused.load(ordering: .relaxed) {
            if chosen.remove(pending.ticket) != nil { break }
            if credits > 0, waiting.first?.ticket == pending.ticket {
                credits -= 1
                break
            }
            let until = touched.addingTimeInterval(deadline)
            if !condition.wait(until: until), Date() >= touched.addingTimeInterval(deadline) {
                open(because: "nobody stepped for \(Int(deadline)) s (deadline)")
                break
            }
        }
        waiting.removeAll { $0.ticket == pending.ticket }
        version &+= 1
        condition.broadcast()
    }

    // MARK: - Commands

    package func pause(by inspector: ObjectIdentifier) {
        condition.lock()
        defer { condition.unlock() }
        owner = inspector
        touched = Date()
        credits = 0
        resumedBecause = ""
        if !paused.load(ordering: .relaxed) { closedAtNanos = wallClockNanos() }
        paused.store(true, ordering: .releasing)
        version &+= 1
    }

    /// What a step did: how many events it released, of how many waiting.
    package struct Step: Equatable, Sendable {
        /// Events let go: waiting ones, or (when none waited) the next ones to arrive.
        package var released: Int
        /// Events waiting, not yet released, when the step was asked for.
        package var waiting: Int
    }

    /// Releases the oldest `count` waiting events, never more than wait: asking for ten
    /// with three waiting releases those three, and the next event to arrive waits. When
    /// none waits, the next `count` to arrive pass.
    @discardableResult
    package func step(_ count: Int) -> Step {
        condition.lock()
        defer { condition.unlock() }
        touched = Date()
        // Released but not yet woken: a credit (in turn) or a ticket (out of turn) each.
        let unreleased = max(0, waiting.count - credits - chosen.count)
        let released = unreleased > 0 ? min(max(1, count), unreleased) : max(1, count)
        credits += released
        version &+= 1
        condition.broadcast()
        return Step(released: released, waiting: unreleased)
    }

    /// Releases one particular waiting event; false if it is no longer waiting.
    @discardableResult
    package func release(ticket: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard waiting.contains(where: { $0.ticket == ticket }) else { return false }
        touched = Date()
        chosen.insert(ticket)
        version &+= 1
        condition.broadcast()
        return true
    }

    package func resume() {
        condition.lock()
        defer { condition.unlock() }
        open(because: "")
    }

    /// The inspector that paused the program has gone: never leave it frozen.
    package func inspectorLeft(_ inspector: ObjectIdentifier) {
        condition.lock()
        defer { condition.unlock() }
        if owner == inspector, paused.load(ordering: .relaxed) {
            open(because: "the inspector that paused the program disconnected")
        }
    }

    /// Opens the gate if its deadline passed with no thread waiting to notice.
    package func checkDeadline() {
        condition.lock()
        defer { condition.unlock() }
        if paused.load(ordering: .relaxed), Date() >= touched.addingTimeInterval(deadline) {
            open(because: "nobody stepped for \(Int(deadline)) s (deadline)")
        }
    }

    /// Lock held.
    private func open(because reason: String) {
        if paused.load(ordering: .relaxed), closedAtNanos > 0 {
            endedPause = PauseInterval(fromNanos: closedAtNanos, toNanos: wallClockNanos())
        }
        closedAtNanos = 0
        paused.store(false, ordering: .releasing)
        owner = nil
        credits = 0
        chosen.removeAll()
        resumedBecause = reason
        version &+= 1
        condition.broadcast()
    }

    /// What the inspectors should show now: paused (since when), the waiting events, and
    /// why the gate last opened by itself and the pause that ended (each reported once).
    package func state() -> GateState {
        condition.lock()
        defer { condition.unlock() }
        let reason = resumedBecause
        resumedBecause = ""
        let ended = endedPause
        endedPause = nil
        let isPaused = paused.load(ordering: .relaxed)
        return GateState(paused: isPaused, pending: waiting, resumedBecause: reason,
                         pausedSinceNanos: isPaused ? closedAtNanos : 0, endedPause: ended)
    }
}
