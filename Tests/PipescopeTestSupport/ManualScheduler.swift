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
public final class ManualScheduler: Scheduler, @unchecked Sendable {
    public init() {}

    public struct SchedulerTimeType: Strideable, Hashable {
        public var nanoseconds: Int
        public init(nanoseconds: Int) { self.nanoseconds = nanoseconds }
        public func distance(to other: Self) -> Stride { Stride(other.nanoseconds - nanoseconds) }
        public func advanced(by n: Stride) -> Self { Self(nanoseconds: nanoseconds + n.nanoseconds) }

        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable,
            ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
            public var nanoseconds: Int
            public init(_ nanoseconds: Int) { self.nanoseconds = nanoseconds }
            public init(integerLiteral value: Int) { nanoseconds = value * 1_000_000_000 }
            public init(floatLiteral value: Double) { nanoseconds = Int(value * 1e9) }
            public init?<T: BinaryInteger>(exactly source: T) { nanoseconds = Int(source) * 1_000_000_000 }
            public var magnitude: Int { abs(nanoseconds) }
            public static func seconds(_ s: Int) -> Self { Self(s * 1_000_000_000) }
            public static func seconds(_ s: Double) -> Self { Self(Int(s * 1e9)) }
            public static func milliseconds(_ ms: Int) -> Self { Self(ms * 1_000_000) }
            public static func microseconds(_ us: Int) -> Self { Self(us * 1_000) }
            public static func nanoseconds(_ ns: Int) -> Self { Self(ns) }
            public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
            public static func + (a: Self, b: Self) -> Self { Self(a.nanoseconds + b.nanoseconds) }
            public static func - (a: Self, b: Self) -> Self { Self(a.nanoseconds - b.nanoseconds) }
            public static func * (a: Self, b: Self) -> Self { Self(a.nanoseconds * b.nanoseconds) }
            public static func += (a: inout Self, b: Self) { a = a + b }
            public static func -= (a: inout Self, b: Self) { a = a - b }
            public static func *= (a: inout Self, b: Self) { a = a * b }
        }
    }

    public typealias SchedulerOptions = Never

    public private(set) var now = SchedulerTimeType(nanoseconds: 0)
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }
    private var queue: [(due: SchedulerTimeType, order: Int, action: () -> Void)] = []
    private var order = 0

    public func schedule(options: Never?, _ action: @escaping () -> Void) {
        enqueue(now, action)
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Never?,
                  _ action: @escaping () -> Void) {
        enqueue(date, action)
    }

    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
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
    public func advance(by stride: SchedulerTimeType.Stride = .nanoseconds(0)) {
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
    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
}
