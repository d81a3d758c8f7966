/// Events per second over the last second or so, from counts and clock ticks.
public struct EventRate: Sendable, Equatable {
    private var pending = 0
    private var samples: [(time: Int64, count: Int)] = []
    public private(set) var perSecond: Double = 0
    /// Counts summed over the window.
    public static let window: Int64 = 2_000_000_000

    public init() {}

    public mutating func record(_ count: Int) { pending += count }

    public mutating func tick(_ now: Int64) {
        samples.append((now, pending))
        pending = 0
        samples.removeAll { now - $0.time > Self.window }
        guard let first = samples.first, now > first.time else {
            perSecond = 0
            return
        }
        let total = samples.dropFirst().reduce(0) { $0 + $1.count }
        perSecond = Double(total) / (Double(now - first.time) / 1e9)
    }

    public static func == (a: EventRate, b: EventRate) -> Bool { a.perSecond == b.perSecond }
}
