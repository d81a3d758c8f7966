import CPipescopeLocations
import Foundation

/// The return addresses of the current thread's stack, taken when a pipeline (or an inner
/// publisher) subscribes, so Pipescope can say where in the program it was made.
///
/// Rules, because this runs on the program's threads, inside its `sink` calls:
/// - Addresses only: nothing is symbolized here. ``Locator`` does that later, on
///   Pipescope's symbol thread, once per address.
/// - A fixed buffer on the caller's stack: no allocation, no lock, no user code. The walk
///   follows frame pointers (Swift keeps them on Linux) and reads only the thread's own
///   stack (`pipescope_return_addresses`); about 50 ns for 40 frames, against 3 µs for
///   glibc's `backtrace()` and 9 µs for the Swift runtime's `Backtrace.capture` (see
///   Performance.md in the DocC catalog).
/// - Never under the registry's lock: ``Tap`` captures before it calls the registry,
///   which only copies the finished addresses into its buffer.
///
/// `PIPESCOPE_LOCATIONS=0` in the environment turns it off (``Probe/init``).
package enum CallStack {
    /// Frames kept per capture: enough to climb out of OpenCombine's and Pipescope's own
    /// frames (a dozen for a `sink`, more for an inner publisher subscribed deep in a
    /// delivery) and keep a few of the program's callers.
    static let depth = 40

    /// Runs `body` with this thread's return addresses, nearest first (empty when
    /// `enabled` is false or the stack is unknown), held in a buffer on this stack that
    /// lives only as long as `body`.
    @inline(__always)
    static func withAddresses<R>(enabled: Bool, frames: ThreadFrames,
                                 _ body: (UnsafeBufferPointer<UInt>) -> R) -> R {
        guard enabled else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return withUnsafeTemporaryAllocation(of: UInt.self, capacity: depth) { buffer in
            let count = capture(into: buffer, frames: frames)
            return body(UnsafeBufferPointer(start: buffer.baseAddress, count: count))
        }
    }

    @inline(never)
    private static func capture(into buffer: UnsafeMutableBufferPointer<UInt>, frames: ThreadFrames) -> Int {
        let bounds = frames.stackBounds
        guard bounds.high > bounds.low, let base = buffer.baseAddress else { return 0 }
        return Int(pipescope_return_addresses(base, Int32(buffer.count), bounds.low, bounds.high))
    }

    /// Whether the environment leaves location capture on: anything but
    /// `PIPESCOPE_LOCATIONS=0` (or `off`, `false`, `no`).
    static package func enabled(in environment: [String: String]) -> Bool {
        guard let value = environment["PIPESCOPE_LOCATIONS"]?.lowercased() else { return true }
        return !["0", "off", "false", "no"].contains(value)
    }
}
