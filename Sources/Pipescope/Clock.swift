import Foundation

/// Wall-clock nanoseconds since 1970 (vDSO `clock_gettime`, a few ns).
@inline(__always)
func wallClockNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
