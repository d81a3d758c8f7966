@preconcurrency import OpenCombine

/// A scheduler whose clock moves only when a test says so, so that debounce, throttle,
/// delay and timeout cases are deterministic.
///
/// ```swift
/// let clock = ManualScheduler()
/// subject.debounce(for: .milliseconds(100), scheduler: clock).sink { … }
/// subject.send(1)
/// clock.advance(by: .milliseconds(100))   // runs what became due, in time order
/// ```
final class ManualScheduler: Scheduler, @unchecked Sendable {
    struct SchedulerTimeType: Strideable, Hashable {
        var nanoseconds: Int
        func distance(to other: Self) -> Stride { Stride(other.nanoseconds - nanoseconds) }
        func advanced(by n: Stride) -> Self { Self(nanoseconds: nanoseconds + n.nanoseconds) }

        struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable,
            ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
            var nanoseconds: Int
            init(_ nanoseconds: Int) { self.nanoseconds = nanoseconds }
            init(integerLiteral value: Int) { nanoseconds = value * 1_000_000_000 }
            init(floatLiteral value: Double) { nanoseconds = Int(value * 1e9) }
            init?<T: BinaryInteger>(exactly source: T) { nanoseconds = Int(source) * 1_000_000_000 }
            var magnitude: Int { abs(nanoseconds) }
            static func seconds(_ s: Int) -> Self { Self(s * 1_000_000_000) }
            static func seconds(_ s: Double) -> Self { Self(Int(s * 1e9)) }
            static func milliseconds(_ ms: Int) -> Self { Self(ms * 1_000_000) }
            static func microseconds(_ us: Int) -> Self { Self(us * 1_000) }
            static func nanoseconds(_ ns: Int) -> Self { Self(ns) }
            static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
            static func + (a: Self, b: Self) -> Self { Self(a.nanoseconds + b.nanoseconds) }
            static func - (a: Self, b: Self) -> Self { Self(a.nanoseconds - b.nanoseconds) }
            static func * (a: Self, b: Self) -> Self { Self(a.nanoseconds * b.nanoseconds) }
            static func += (a: inout Self, b: Self) { a = a + b }
            static func -= (a: inout Self, b: Self) { a = a - b }
            static func *= (a: inout Self, b: Self) { a = a * b }
        }
    }

    typealias SchedulerOptions = Never

    private(set) var now = SchedulerTimeType(nanoseconds: 0)
    var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }
    private var queue: [(due: SchedulerTimeType, order: Int, action: () -> Void)] = []
    private var order = 0

    func schedule(options: Never?, _ action: @escaping () -> Void) {
        enqueue(now, action)
    }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Never?,
                  _ action: @escaping () -> Void) {
        enqueue(date, action)
    }

    func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                  tolerance: SchedulerTimeType.Stride, options: Never?,
                  _ action: @escaping () -> Void) -> Cancellable {
        var cancelled = false
        func repeatFrom(_ due: SchedulerTimeType) {
            enqueue(due) {
                guard !cancelled else { return }
                action()
                repeatFrom(due.advanced(by: interval))
            }
        }
        repeatFrom(date)
        return AnyCancellable { cancelled = true }
    }

    /// Runs everything due up to `now + stride`, in time order, moving the clock along.
    func advance(by stride: SchedulerTimeType.Stride = .nanoseconds(0)) {
        let target = now.advanced(by: stride)
        while let next = queue.indices.min(by: { (queue[$0].due, queue[$0].order) < (queue[$1].due, queue[$1].order) }),
              queue[next].due <= target {
            let item = queue.remove(at: next)
            if item.due > now { now = item.due }
            item.action()
        }
        now = target
    }

    private func enqueue(_ due: SchedulerTimeType, _ action: @escaping () -> Void) {
        order += 1
        queue.append((due, order, action))
    }
}

extension ManualScheduler.SchedulerTimeType: Comparable {
    static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
}
