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
/// Cost: one `backtrace()` of 16 frames (about a microsecond) per outermost cancel;
/// nothing on the value path.
enum OwnerRelease {
    private static let depth: Int32 = 16

    /// glibc's `backtrace(3)`; Swift's Glibc module does not import execinfo.h.
    private typealias Backtrace = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32
    private static let backtrace: Backtrace? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "backtrace")
        .map { unsafeBitCast($0, to: Backtrace.self) }

    /// Return addresses seen only on the release path.
    static let releaseSites: Set<UInt> = calibrate()

    static func isReleasingOwner() -> Bool {
        guard !releaseSites.isEmpty, let backtrace else { return false }
        return withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: Int(depth)) { buffer in
            let n = Int(backtrace(buffer.baseAddress, depth))
            for i in 0..<n where releaseSites.contains(UInt(bitPattern: buffer[i])) { return true }
            return false
        }
    }

    private final class Capture: @unchecked Sendable {
        var frames: [UInt] = []
        func take() {
            guard let backtrace = OwnerRelease.backtrace else { return }
            frames = withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: Int(depth)) { buffer in
                let n = Int(backtrace(buffer.baseAddress, depth))
                return (0..<n).map { UInt(bitPattern: buffer[$0]) }
            }
        }
    }

    @inline(never)
    private static func calibrate() -> Set<UInt> {
        let released = Capture(), cancelled = Capture()
        var owned: AnyCancellable? = AnyCancellable { released.take() }
        owned = nil
        let kept = AnyCancellable { cancelled.take() }
        kept.cancel()
        withExtendedLifetime(owned) {}
        // Frames below this function are shared; the closures' own frames differ but
        // never appear in a real cancel. What remains is the release path.
        return Set(released.frames).subtracting(cancelled.frames)
    }
}
