/// Durations in nanoseconds, counted in buckets a quarter of a power of two wide (each
/// within 12% of the values in it), over the range the values actually span: a stage
/// whose deliveries take 1 µs to 5 ms keeps about 50 counters, whatever their number.
///
/// Exact: ``count``, ``max`` and ``total``. Within a bucket: ``percentile(_:)``.
///
/// ```swift
/// var h = TimeHistogram()
/// for ns in [900, 1_000, 1_100, 2_000_000] { h.add(Int64(ns)) }
/// h.percentile(0.5)   // about 1_000
/// h.max               // 2_000_000
/// ```
public struct TimeHistogram: Hashable, Sendable {
    public private(set) var count = 0
    public private(set) var max: Int64 = 0
    /// The sum of every duration added (saturating).
    public private(set) var total: Int64 = 0
    /// The bucket of `counts[0]`.
    private var first = 0
    private var counts: [UInt32] = []

    public init() {}

    /// A histogram as it was sent: ``buckets`` and the exact figures. Counts that do not
    /// add up to `count` are taken as they are (percentiles read the buckets).
    public init(count: Int, max: Int64, total: Int64, first: Int, counts: [UInt32]) {
        self.count = Swift.max(0, count)
        self.max = max
        self.total = total
        self.first = Swift.max(0, Swift.min(first, 256))
        self.counts = counts
    }

    /// The buckets in use: the first one's number and the counts from there.
    public var buckets: (first: Int, counts: [UInt32]) { (first, counts) }

    public mutating func add(_ nanos: Int64) {
        let v = Swift.max(0, nanos)
        count += 1
        max = Swift.max(max, v)
        total = total.addingReportingOverflow(v).overflow ? .max : total + v
        let b = Self.bucket(of: v)
        if counts.isEmpty {
            first = b
            counts = [1]
        } else if b < first {
            counts.insert(contentsOf: repeatElement(0, count: first - b), at: 0)
            first = b
            counts[0] = 1
        } else if b >= first + counts.count {
            counts.append(contentsOf: repeatElement(0, count: b - first - counts.count + 1))
            counts[b - first] = 1
        } else if counts[b - first] < .max {
            counts[b - first] += 1
        }
    }

    /// The duration below which a fraction `q` (0...1) of the values fall: the middle of
    /// its bucket, never above ``max``. 0 when empty.
    public func percentile(_ q: Double) -> Int64 {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Int((Double(count) * Swift.min(1, Swift.max(0, q))).rounded(.up)))
        var seen = 0
        for (i, n) in counts.enumerated() {
            seen += Int(n)
            if seen >= rank { return Swift.min(max, Self.middle(of: first + i)) }
        }
        return max
    }

    /// How many values took `nanos` or longer, at least: the values of the buckets that
    /// start at or above it (a bucket that straddles it is not counted, so a value at most
    /// 12% over the line may be missed, and none under it is counted). 0 when empty.
    ///
    /// ```swift
    /// var h = TimeHistogram()
    /// for ms in [1, 2, 20, 30] { h.add(Int64(ms) * 1_000_000) }
    /// h.count(atLeast: 16_000_000)   // 2
    /// ```
    public func count(atLeast nanos: Int64) -> Int {
        guard count > 0, max >= nanos else { return 0 }
        var n = 0
        for (i, c) in counts.enumerated().reversed() {
            guard Self.low(of: first + i) >= nanos else { break }
            n += Int(c)
        }
        return n
    }

    public var p50: Int64 { percentile(0.5) }
    public var p99: Int64 { percentile(0.99) }

    /// Buckets 0...3 hold 0...3 ns exactly; above, four per power of two.
    static func bucket(of v: Int64) -> Int {
        guard v >= 4 else { return Int(v) }
        let e = 63 - v.leadingZeroBitCount
        return e * 4 + Int((v >> (e - 2)) & 3)
    }

    /// The smallest duration bucket `bucket` holds.
    static func low(of bucket: Int) -> Int64 {
        guard bucket >= 8 else { return Int64(bucket) }
        let e = bucket / 4, sub = Int64(bucket % 4)
        return (4 + sub) << (e - 2)
    }

    static func middle(of bucket: Int) -> Int64 {
        guard bucket >= 8 else { return Int64(bucket) }
        let e = bucket / 4, sub = Int64(bucket % 4)
        let low = (4 + sub) << (e - 2)
        return low + (Int64(1) << (e - 2)) / 2
    }
}

/// How long a stage's operator takes per value it receives, and how long its subscriber
/// takes when it is a root's sink.
///
/// A value a stage delivers runs its subscriber's code, which belongs to the stage
/// downstream (its parent): so the deliveries of a stage's upstream stages are its own
/// operator's time (``own``: its code alone; ``withDownstream``: with the stages it
/// called), and a root's own deliveries are its sink's (``sink``).
public struct StageTimes: Hashable, Sendable {
    public var own = TimeHistogram()
    public var withDownstream = TimeHistogram()
    public var sink = TimeHistogram()

    public init() {}
}
