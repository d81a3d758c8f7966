import PipescopeGraph

/// The probe's most recent caused events (values, completions, failures, cancels; not
/// the late delivery times, which no chain passes through), at
/// most ``GraphSnapshot/recentLimit``, for the snapshots it cuts
/// (``GraphSnapshot/recent``): an inspector that attaches late follows a chain back
/// through them to before its own history.
///
/// A ring: the flush copies each caused event in (its text as the tap already clipped
/// it), overwriting the oldest, so the cost is a copy per event and the memory is fixed.
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
        for (i, original) in events.enumerated() where original.kind.payload.caused && original.kind != .delivered {
            var event = original
            if event.id == 0 { event.id = firstID + EventID(i) }
            if ring.count < limit {
                ring.append(event)
            } else {
                ring[next] = event
                next = (next + 1) % limit
            }
        }
    }

    /// The events kept, oldest first.
    var events: [StageEvent] {
        ring.count < limit ? ring : Array(ring[next...] + ring[..<next])
    }
}
