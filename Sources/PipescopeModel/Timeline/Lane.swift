import PipescopeGraph

/// What a stage's timeline lane draws besides its life (its subscribe, its end and how
/// it ended, which the graph knows): when its values came, when it asked for more, and
/// the stretches it waited with no outstanding demand (held back by its subscriber).
///
/// Kept for as long as the history keeps events, so every kept value of every stage,
/// ended ones included, can be drawn at any zoom; ``drop(before:)`` follows the
/// history's eviction. Times are wall-clock nanoseconds, kept in order, so counting the
/// values in a column is two binary searches, however many there are.
///
/// ```swift
/// var lane = Lane()
/// lane.addValue(at: t)
/// lane.values(from: t, to: t + 100_000_000)   // 1
/// ```
public struct Lane: Hashable, Sendable {
    /// Times of its values, in order.
    public private(set) var values: [Int64] = []
    /// Times of its requests (demand asked of it), in order.
    public private(set) var requests: [Int64] = []
    /// The stretches it had no outstanding demand while it lived, in order; the last one
    /// is open (`end` nil) while it still waits.
    public private(set) var held: [Held] = []

    /// A stretch with no outstanding demand: from `start` until `end` (nil: still).
    public struct Held: Hashable, Sendable {
        public var start: Int64
        public var end: Int64?
    }

    public init() {}

    mutating func addValue(at time: Int64) { Self.append(time, to: &values) }

    mutating func addRequest(at time: Int64) { Self.append(time, to: &requests) }

    /// Notes whether the stage has outstanding demand as of `time`: a change opens or
    /// closes a held stretch.
    mutating func noteDemand(outstanding: Bool, at time: Int64) {
        let holding = held.last.map { $0.end == nil } ?? false
        if !outstanding, !holding {
            held.append(Held(start: max(time, held.last?.end ?? time), end: nil))
        } else if outstanding, holding {
            held[held.count - 1].end = max(time, held[held.count - 1].start)
        }
    }

    /// Closes a held stretch at the stage's end.
    mutating func end(at time: Int64) {
        if let last = held.last, last.end == nil { held[held.count - 1].end = max(time, last.start) }
    }

    /// Whether it holds anything from before `time` that ``drop(before:)`` would forget.
    func knowsOf(before time: Int64) -> Bool {
        (values.first ?? .max) < time || (requests.first ?? .max) < time || (held.first?.end ?? .max) < time
    }

    /// Forgets what happened before `time` (the history evicted it).
    mutating func drop(before time: Int64) {
        values.removeFirst(Self.firstIndex(notBefore: time, in: values))
        requests.removeFirst(Self.firstIndex(notBefore: time, in: requests))
        held.removeAll { ($0.end ?? .max) < time }
    }

    /// How many values came in `[from, to)`.
    public func values(from: Int64, to: Int64) -> Int { Self.count(from: from, to: to, in: values) }

    /// How many requests came in `[from, to)`.
    public func requests(from: Int64, to: Int64) -> Int { Self.count(from: from, to: to, in: requests) }

    /// Whether the stage waited with no outstanding demand during all of `[from, to)`.
    public func isHeld(from: Int64, to: Int64) -> Bool {
        // The last stretch starting at or before `from` is the only one that can cover it.
        var low = 0, high = held.count
        while low < high {
            let mid = (low + high) / 2
            if held[mid].start <= from { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return false }
        return (held[low - 1].end ?? .max) >= to
    }

    /// The oldest time the lane knows of, if any.
    var oldest: Int64? { [values.first, requests.first, held.first?.start].compactMap { $0 }.min() }

    // MARK: - Sorted times

    /// Appends in order: a time earlier than the last (another thread's clock read a
    /// moment before) is kept at the last, so the array stays sorted.
    private static func append(_ time: Int64, to times: inout [Int64]) {
        times.append(max(time, times.last ?? time))
    }

    private static func count(from: Int64, to: Int64, in times: [Int64]) -> Int {
        guard to > from else { return 0 }
        return firstIndex(notBefore: to, in: times) - firstIndex(notBefore: from, in: times)
    }

    private static func firstIndex(notBefore time: Int64, in times: [Int64]) -> Int {
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] < time { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
