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
    public private(set) var valueTimes = SortedTimes()
    /// Times of its requests (demand asked of it), in order.
    public private(set) var requestTimes = SortedTimes()
    /// Times of its values, oldest first.
    public var values: [Int64] { valueTimes.all }
    /// Times of its requests, oldest first.
    public var requests: [Int64] { requestTimes.all }
    /// The stretches it had no outstanding demand while it lived, in order; the last one
    /// is open (`end` nil) while it still waits.
    public private(set) var held: [Held] = []

    /// A stretch with no outstanding demand: from `start` until `end` (nil: still).
    public struct Held: Hashable, Sendable {
        public var start: Int64
        public var end: Int64?
    }

    public init() {}

    mutating func addValue(at time: Int64) { valueTimes.append(time) }

    mutating func addRequest(at time: Int64) { requestTimes.append(time) }

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
        (valueTimes.first ?? .max) < time || (requestTimes.first ?? .max) < time || (held.first?.end ?? .max) < time
    }

    /// Moves its times before `time` to `file` (the history spilled their events).
    mutating func store(before time: Int64, in file: SpilledTimes) {
        valueTimes.store(before: time, in: file)
        requestTimes.store(before: time, in: file)
    }

    /// Forgets what happened before `time` (the history evicted it).
    mutating func drop(before time: Int64) {
        valueTimes.drop(before: time)
        requestTimes.drop(before: time)
        held.removeAll { ($0.end ?? .max) < time }
    }

    /// How many values came in `[from, to)`.
    public func values(from: Int64, to: Int64) -> Int { valueTimes.count(from: from, to: to) }

    /// How many requests came in `[from, to)`.
    public func requests(from: Int64, to: Int64) -> Int { requestTimes.count(from: from, to: to) }

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
    var oldest: Int64? { [valueTimes.first, requestTimes.first, held.first?.start].compactMap { $0 }.min() }
}
