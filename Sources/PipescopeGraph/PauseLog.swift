/// The wall-clock time the program spent paused by an inspector: the gate closed, its
/// threads held before their next event. Held time is no wait of the program's own, so
/// how long a stage waited (``overlap(from:to:)`` taken off) leaves it out: a timer
/// that ticks every 250 ms is not "stalled for 5s" after a five-second pause.
///
/// Folded from the batches' trailers (``note(_:at:)``): the pause under way
/// (``GateState/pausedSinceNanos``) and each that ended (``GateState/endedPause``).
/// Spans are wall-clock times, so asking about a moment before a pause counts none of it:
/// the log can be newer than the graph it travels with.
///
/// ```swift
/// var pauses = PauseLog()
/// pauses.note(GateState(paused: true, pausedSinceNanos: 10_000), at: 10_500)
/// pauses.overlap(from: 0, to: 12_000)        // 2_000: paused since 10_000, still
/// pauses.note(GateState(endedPause: PauseInterval(fromNanos: 10_000, toNanos: 15_000)), at: 15_100)
/// pauses.overlap(from: 12_000, to: 20_000)   // 3_000
/// ```
public struct PauseLog: Hashable, Sendable {
    /// The pauses in order; the last one's `toNanos` is `.max` while it is under way.
    public internal(set) var spans: [PauseInterval] = []

    public init() {}

    /// Whether a pause is under way, as the last batch said.
    public var isPaused: Bool { spans.last?.toNanos == .max }

    /// Takes what a batch's gate says, the batch's first event being at `time` (nil: it
    /// has none). A pause whose end was never said (its batch was skipped) ends at the
    /// first event after it, when the program ran again.
    public mutating func note(_ gate: GateState, at time: Int64?) {
        if let ended = gate.endedPause, ended.toNanos >= ended.fromNanos {
            if let last = spans.last, last.fromNanos == ended.fromNanos {
                spans[spans.count - 1].toNanos = ended.toNanos
            } else if spans.last.map({ $0.toNanos <= ended.fromNanos }) ?? true {
                spans.append(ended)
            } else if isPaused {
                // An open pause the gate never said had ended, then this one.
                spans[spans.count - 1].toNanos = max(spans[spans.count - 1].fromNanos, ended.fromNanos)
                spans.append(ended)
            }
        }
        if gate.paused, gate.pausedSinceNanos > 0 {
            if !isPaused, spans.last.map({ $0.toNanos <= gate.pausedSinceNanos }) ?? true {
                spans.append(PauseInterval(fromNanos: gate.pausedSinceNanos, toNanos: .max))
            }
        } else if !gate.paused, isPaused {
            let from = spans[spans.count - 1].fromNanos
            spans[spans.count - 1].toNanos = max(from, time ?? from)
        }
    }

    /// Nanoseconds of pauses between `from` and `to` (a pause under way counts up to `to`).
    public func overlap(from: Int64, to: Int64) -> Int64 {
        guard !spans.isEmpty, to > from else { return 0 }
        var total: Int64 = 0
        // Newest first: most questions are about the recent past.
        for span in spans.reversed() {
            if span.toNanos <= from { break }
            let start = max(span.fromNanos, from), end = min(span.toNanos, to)
            if end > start { total += end - start }
        }
        return total
    }
}
