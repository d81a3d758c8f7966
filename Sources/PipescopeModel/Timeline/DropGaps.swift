import PipescopeGraph

/// Where the probe lost events, for the event log and the timeline to show the gap where
/// it is: one gap per batch that says it dropped some (``BatchTrailer/droppedSinceLast``).
///
/// The probe's buffer drops only once it is full, and then every event until the flush
/// takes it, so a batch's drops all come after its last event: the gap sits after event
/// ``Gap/after`` (the batch's sequence), from ``Gap/time`` (when the first was lost).
/// A batch cut in parts says its drops in its last part, whose sequence is the batch's.
///
/// Bounded: at most ``limit`` gaps are kept (a probe that drops in every flush makes 40
/// a second); past it the oldest go, and ``forgotten`` counts their events.
///
/// ```swift
/// var drops = DropGaps()
/// drops.record(batch)                  // trailer: 120 dropped since the last, 100 of #1's
/// drops.gaps.last?.count               // 120
/// drops.gaps.last?.count(of: 1)        // 100
/// drops.gaps(before: 5_000)            // the gaps a cursor at event 5,000 has seen
/// ```
public struct DropGaps: Sendable, Equatable {
    /// One flush's worth of lost events.
    public struct Gap: Sendable, Equatable {
        /// The number of the last event kept before the gap.
        public var after: EventID
        /// When the first of them was lost (wall-clock nanoseconds): where the timeline
        /// marks it. The last event's time when the probe did not say.
        public var time: Int64
        /// Events lost in all.
        public var count: UInt64
        /// Events lost by pipeline (its root stage; 0: a stage the probe did not know).
        /// Empty from probes that did not count them by pipeline (older recordings).
        public var byPipeline: [NodeID: UInt64]

        /// The events pipeline `root` lost here: all of them when the probe did not say
        /// whose they were.
        public func count(of root: NodeID) -> UInt64 {
            byPipeline.isEmpty ? count : byPipeline[root] ?? 0
        }

        /// The line the event log shows for it (`root`: only that pipeline's events are
        /// listed).
        public func line(for root: NodeID? = nil) -> String {
            let n = root.map { count(of: $0) } ?? count
            return "\(n) event\(n == 1 ? "" : "s") dropped here (the probe's buffer was full)"
        }
    }

    public private(set) var gaps: [Gap] = []
    /// Events of gaps no longer kept (past ``limit``).
    public private(set) var forgotten: UInt64 = 0

    public static let limit = 10_000

    public init() {}

    /// Keeps the gap `batch` says there is after its last event, if any.
    public mutating func record(_ batch: EventBatch) {
        let trailer = batch.trailer
        guard trailer.droppedSinceLast > 0 else { return }
        let time = trailer.droppedSinceNanos != 0 ? trailer.droppedSinceNanos : batch.events.last?.time ?? 0
        gaps.append(Gap(after: trailer.sequence, time: time, count: trailer.droppedSinceLast,
                        byPipeline: trailer.droppedByPipeline))
        if gaps.count > Self.limit {
            let old = gaps.count - Self.limit
            forgotten += gaps[..<old].reduce(0) { $0 + $1.count }
            gaps.removeFirst(old)
        }
    }

    /// Forgets every gap (a new program's numbering starts over).
    public mutating func removeAll() {
        gaps = []
        forgotten = 0
    }

    /// The gaps after events numbered below `id`, oldest first: those a cursor at event
    /// `id` has passed (nil: all, following live).
    public func gaps(before id: EventID?) -> ArraySlice<Gap> {
        guard let id else { return gaps[...] }
        var low = 0, high = gaps.count
        while low < high {
            let mid = (low + high) / 2
            if gaps[mid].after < id { low = mid + 1 } else { high = mid }
        }
        return gaps[..<low]
    }
}

extension AppState {
    /// The gaps the screen's moment has passed: every one while live, those before the
    /// cursor's event in history; none while an earlier run is shown (they are the
    /// running program's).
    public var dropGapsPassed: ArraySlice<DropGaps.Gap> {
        guard runs.viewing == nil else { return [] }
        return drops.gaps(before: cursor.position.flatMap { cursor.log.event(at: $0)?.id })
    }
}
