import PipescopeGraph

/// The probe's most recent caused events (values, completions, failures, cancels; not
/// the late delivery times, which no chain passes through), at
/// most ``GraphSnapshot/recentLimit``, for the snapshots it cuts
/// (``GraphSnapshot/recent``): an inspector that attaches late follows a chain back
/// through them to before its own history.
///
/// A ring: the flush copies each caused event in (its text as the tap already clipped
/// it), overwriting the oldest, so the memory is fixed; of a batch with more than the
/// ring holds only the newest are copied, so the cost is at most a copy per kept event.
/// It runs on the flush's thread under the probe's own state lock, never the tap's.
///
/// ```swift
/// var recent = RecentCauses(limit: 4)
/// recent.record(batch.events, firstID: 101)
/// recent.events   // the last 4 caused events, oldest first
/// ```
struct RecentCauses: Sendable {
    let limit: Int
    private var ring: [StageEvent] = []
    /// Where the next event goes once the ring is full.
    private var next = 0

    init(limit: Int = GraphSnapshot.recentLimit) {
        self.limit = max(1, limit)
    }

    /// Keeps the caused events of a batch whose first event is numbered `firstID` (the
    /// batch's own numbers when its events have them).
    mutating func record(_ events: [StageEvent], firstID: EventID) {
        // Only the batch's newest `limit` caused events can stay in the ring: copy from
        // the first of them, not every event of a busy batch only to overwrite it.
        var start = events.endIndex, found = 0
        while start > events.startIndex, found < limit {
            start -= 1
            if Self.keeps(events[start]) { found += 1 }
        }
        for i in start..<events.endIndex where Self.keeps(events[i]) {
            var event = events[i]
            if event.id == 0 { event.id = firstID + EventID(i) }
            if ring.count < limit {
                ring.append(event)
            } else {
                ring[next] = event
                next = (next + 1) % limit
            }
        }
    }

    /// Whether `event` is one a chain can pass through.
    private static func keeps(_ event: StageEvent) -> Bool {
        event.kind.payload.caused && event.kind != .delivered
    }

    /// The events kept, oldest first.
    var events: [StageEvent] {
        ring.count < limit ? ring : Array(ring[next...] + ring[..<next])
    }
}
