import CPipescopeLocations
import Glibc
@preconcurrency import OpenCombine

/// Tells a cancel made because an `AnyCancellable` was released (its owner went away,
/// or nobody kept it) from a cancel somebody asked for.
///
/// The hook sees the same `cancel()` either way. The difference is on the stack:
/// `AnyCancellable.deinit` calls the cancel closure itself, where `cancel()` goes through
/// `AnyCancellable.cancel`. At start-up one `AnyCancellable` is released and one is
/// cancelled, and the return addresses only the release passed through are kept. A
/// cancel is "by owner" when one of those addresses is on its stack. A cancel from
/// within some other object's deinit passes through the same runtime release path,
/// and counts as "by owner" too, which is what it is.
///
/// The stack is read by following frame pointers (``CallStack``'s walk, tens of
/// nanoseconds), calibrated with the same walk. Should that calibration find no address
/// of the release path (frame pointers missing where they are needed), glibc's
/// `backtrace()` is used instead, about a microsecond per outermost cancel. Nothing on
/// the value path.
enum OwnerRelease {
    private static let depth = 48

    /// glibc's `backtrace(3)`; Swift's Glibc module does not import execinfo.h.
    private typealias Backtrace = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32
    private static let backtrace: Backtrace? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "backtrace")
        .map { unsafeBitCast($0, to: Backtrace.self) }

    /// How a stack is read: the frame-pointer walk, or glibc's unwinder.
    private enum Walk { case framePointers, unwinder }

    /// Return addresses seen only on the release path (a handful: compared one by one,
    /// no hashing), and the walk that found them.
    private static let calibration: (sites: [UInt], walk: Walk) = calibrate()

    /// Finds the release path now, on a stack that is inside no release or cancel: the tap
    /// calls it when it is made, before any cancel. (Found first inside a cancel that is
    /// itself a release, both calibrating stacks would share that outer release, and the
    /// walk might not reach what tells them apart.)
    static func calibrateNow() {
        _ = calibration
    }

    /// Whether the release path was found with the frame-pointer walk (the cheap one).
    static var walksFramePointers: Bool { calibration.walk == .framePointers }

    /// Whether this cancel runs inside the release of an `AnyCancellable` (or another
    /// object's deinit). `frames`: the calling thread's, for its stack's bounds.
    static func isReleasingOwner(frames: ThreadFrames) -> Bool {
        let (sites, walk) = calibration
        guard !sites.isEmpty else { return false }
        return withAddresses(walk, frames: frames) { stack in stack.contains { sites.contains($0) } }
    }

    /// Runs `body` with this thread's return addresses as `walk` reads them.
    @inline(never)
    private static func withAddresses<R>(_ walk: Walk, frames: ThreadFrames,
                                         _ body: (UnsafeBufferPointer<UInt>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt.self, capacity: depth) { buffer in
            guard let base = buffer.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            var n = 0
            switch walk {
            case .framePointers:
                let bounds = frames.stackBounds
                if bounds.high > bounds.low {
                    n = Int(pipescope_return_addresses(base, Int32(depth), bounds.low, bounds.high))
                }
            case .unwinder:
                if let backtrace {
                    n = base.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: depth) {
                        Int(backtrace($0, Int32(depth)))
                    }
                }
            }
            return body(UnsafeBufferPointer(start: base, count: n))
        }
    }

    private final class Capture: @unchecked Sendable {
        let walk: Walk
        var frames: [UInt] = []
        init(_ walk: Walk) { self.walk = walk }
        func take() {
            frames = OwnerRelease.withAddresses(walk, frames: ThreadFrames.current) { Array($0) }
        }
    }

    private static func calibrate() -> (sites: [UInt], walk: Walk) {
        let sites = releaseOnly(.framePointers)
        if recognises(sites, .framePointers) { return (sites, .framePointers) }
        return (releaseOnly(.unwinder), .unwinder)
    }

    /// Whether `sites` recognise a release made from elsewhere (so they hold the release
    /// path itself, not only the calibrating function's own call).
    @inline(never)
    private static func recognises(_ sites: [UInt], _ walk: Walk) -> Bool {
        let released = Capture(walk)
        var owned: AnyCancellable? = AnyCancellable { released.take() }
        owned = nil
        withExtendedLifetime(owned) {}
        return released.frames.contains { sites.contains($0) }
    }

    @inline(never)
    private static func releaseOnly(_ walk: Walk) -> [UInt] {
        let released = Capture(walk), cancelled = Capture(walk)
        var owned: AnyCancellable? = AnyCancellable { released.take() }
        owned = nil
        let kept = AnyCancellable { cancelled.take() }
        kept.cancel()
        withExtendedLifetime(owned) {}
        // Frames below this function are shared; the closures' own frames differ but
        // never appear in a real cancel. What remains is the release path.
        return Array(Set(released.frames).subtracting(cancelled.frames))
    }
}
