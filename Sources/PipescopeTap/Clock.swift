import CPipescopeClock
import Foundation

/// Wall-clock nanoseconds since 1970 (vDSO `clock_gettime`, about 25 ns).
@inline(__always)
package func wallClockNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// The stamp of a ``RawEvent``: the CPU's cycle counter (a few cycles), turned into
/// wall-clock time at the flush by ``TickClock``.
@inline(__always)
package func eventTicks() -> Int64 {
    Int64(bitPattern: pipescope_ticks())
}

/// Turns event ticks into wall-clock nanoseconds.
///
/// Each flush reads the ticks and the wall clock together (an ``Anchor``) and places its
/// events back from there, at a rate measured over the whole run so far: so an event's
/// time is as exact as the wall clock near the flush, and a long run makes the rate more
/// exact, not less. (Ticks run at a constant rate across cores on every CPU this reads
/// them from: x86 with an invariant TSC, ARM's generic timer. Elsewhere ticks are
/// monotonic nanoseconds.)
package struct TickClock {
    package struct Anchor {
        var ticks: Int64
        var wallNanos: Int64
        /// Nanoseconds per tick.
        var rate: Double

        @inline(__always)
        func wallNanos(ofTicks t: Int64) -> Int64 {
            wallNanos - Int64((Double(ticks &- t) * rate).rounded())
        }

        /// A duration of `t` ticks in nanoseconds.
        @inline(__always)
        func nanos(ofTicks t: Int64) -> Int64 {
            Int64((Double(max(0, t)) * rate).rounded())
        }
    }

    private let startTicks: Int64
    private let startMonotonic: Int64
    private var rate: Double

    package init() {
        startTicks = eventTicks()
        startMonotonic = Self.monotonicNanos()
        rate = pipescope_ticks_are_cycles() == 0 ? 1 : Self.calibrate()
    }

    /// Reads the clocks now, refining the rate.
    mutating package func anchor() -> Anchor {
        let monotonic = Self.monotonicNanos()
        let ticks = eventTicks()
        let wall = wallClockNanos()
        if pipescope_ticks_are_cycles() != 0, ticks &- startTicks > 10_000_000 {
            rate = Double(monotonic &- startMonotonic) / Double(ticks &- startTicks)
        }
        return Anchor(ticks: ticks, wallNanos: wall, rate: rate)
    }

    private static func monotonicNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// A first rate, over 2 ms at start-up, used until the run is long enough to
    /// measure one.
    private static func calibrate() -> Double {
        let t0 = eventTicks(), m0 = monotonicNanos()
        var m1 = m0
        while m1 - m0 < 2_000_000 { m1 = monotonicNanos() }
        let t1 = eventTicks()
        return t1 > t0 ? Double(m1 - m0) / Double(t1 - t0) : 1
    }
}
