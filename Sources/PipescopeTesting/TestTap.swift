import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeProbe
import PipescopeTap
import Synchronization

/// The process's tap for tests: one probe, enabled on the first `findings { }` and kept
/// on for the rest of the process (turning OpenCombine's hook on and off as tests come
/// and go would race the tests that run beside them), and the blocks running now.
///
/// Every few milliseconds while a block runs (and at each block's end), ``pump()``
/// flushes the probe and hands the batch to each block, which keeps its own pipelines'
/// events (``BlockFold``). Pumps run one at a time, so each block folds every batch, in
/// order.
///
/// A test process that also calls `Pipescope.start()` has two probes: OpenCombine's hook
/// calls every enabled handler, so both see every subscription (each costs the tap twice),
/// but a `CancellableBag` owner's release is told to the one enabled last (`ActiveTap`).
final class TestTap: @unchecked Sendable {
    static let shared = TestTap()

    private let probe = Probe()
    // LockedBox (a pthread mutex), not Synchronization's Mutex: on Linux that one is a
    // futex ThreadSanitizer cannot see, so every block's access read as a race under TSan.
    private let blocks = LockedBox<[UInt64: BlockFold]>([:])
    private let nextScope = Atomic<UInt64>(1)
    /// Held for a whole pump: batches reach the blocks in the order they were flushed.
    /// It counts the pumps (a LockedBox of Void has no storage of its own, and
    /// ThreadSanitizer took its empty value's accesses for the lock's memory).
    private let pumps = LockedBox<Int>(0)
    private let timer: DispatchSourceTimer

    private init() {
        probe.enable()
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pipescope.testing.pump"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(10))
        timer.setEventHandler { [unowned self] in
            if !blocks.withLockedValue({ $0.isEmpty }) { pump() }
        }
        timer.resume()
    }

    /// A new block, judged with `linter`: its scope, for ``FindingScope/current``.
    func begin(linter: Linter) -> UInt64 {
        // Events buffered before it are no block's: flushed before it starts.
        pump()
        let scope = nextScope.add(1, ordering: .relaxed).oldValue
        blocks.withLockedValue { $0[scope] = BlockFold(scope: scope, linter: linter) }
        return scope
    }

    /// Ends block `scope`: waits (at most `settle` seconds) until a pump brings none of its
    /// events and every place of its stages is known, then judges it.
    func end(_ scope: UInt64, thresholds: FindingThresholds) -> (findings: [Finding], dropped: UInt64) {
        let deadline = Date(timeIntervalSinceNow: thresholds.settle)
        while true {
            let pending = pump()
            let quiet = blocks.withLockedValue { $0[scope]?.lastEvents == 0 }
            if quiet, !pending { break }
            guard Date() < deadline else { break }
            probe.waitForSymbols(until: min(deadline, Date(timeIntervalSinceNow: 0.01)))
        }
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        guard var block = blocks.withLockedValue({ $0.removeValue(forKey: scope) }) else { return ([], 0) }
        return (block.findings(at: now, leaks: thresholds.findsLeaks), block.dropped)
    }

    /// Flushes the probe and gives the batch to every block running; returns whether
    /// places are still pending after it. Read under the pump's lock: the flush that finds
    /// a place is the one that says it is no longer pending, so a block that ends once
    /// nothing is pending has been given every place (read after the lock, another
    /// thread's pump could have found the last one and not yet given it out: a finding
    /// with no line, one run in ten under ThreadSanitizer).
    @discardableResult
    func pump() -> Bool {
        pumps.withLockedValue { count in
            count += 1
            let batch = probe.flush()
            blocks.withLockedValue { blocks in
                for scope in blocks.keys { blocks[scope]!.take(batch) }
            }
            return probe.locationsPending
        }
    }
}
