import PipescopeGraph

/// The probe's caused events (values, completions, failures, cancels; not the late
/// delivery times, which no chain passes through) that its snapshots carry
/// (``GraphSnapshot/recent``): an inspector that attaches late follows a chain back
/// through them to before its own history.
///
/// Two bounds keep them. The newest ``GraphSnapshot/recentLimit`` of all stages, in a
/// ring; and each stage's own newest ``perStage``, for as long as the stage is in the
/// probe's graph (``forgetStages(notIn:)`` after each prune). The second is what keeps a
/// chain across a long gap: a value held by `receive(on:)`, `buffer` or `debounce` while
/// thousands of values pass through other pipelines still finds the input it came from,
/// which the ring alone has long overwritten.
///
/// The flush copies each caused event in (its text as the tap already clipped it), so
/// the memory is fixed by the two bounds and the stages alive; of a batch with more than
/// the ring holds only the newest go to the ring. It runs on the flush's thread under the
/// probe's own state lock, never the tap's.
///
/// ```swift
/// var recent = RecentCauses(limit: 4)
/// recent.record(batch.events, firstID: 101)
/// recent.events   // the last 4 caused events, and each stage's last ones, oldest first
/// ```
struct RecentCauses: Sendable {
    let limit: Int
    /// How many of each stage's newest caused events are kept beyond the ring.
    let perStage: Int
    private var ring: [StageEvent] = []
    /// Where the next event goes once the ring is full.
    private var next = 0
    /// Each stage's newest caused events, oldest first, at most ``perStage``.
    private var byStage: [NodeID: [StageEvent]] = [:]

    /// Each stage's newest caused events kept beyond the ring: enough for an input a
    /// stage holds (`receive(on:)` on a busy scheduler, `buffer`) and the few after it.
    static let perStageLimit = 4

    init(limit: Int = GraphSnapshot.recentLimit, perStage: Int = RecentCauses.perStageLimit) {
        self.limit = max(1, limit)
        self.perStage = max(1, perStage)
    }

    /// Keeps the caused events of a batch whose first event is numbered `firstID` (the
    /// batch's own numbers when its events have them).
    mutating func record(_ events: [StageEvent], firstID: EventID) {
        // Each stage's newest: walked from the end, so a busy stage's older events of the
        // batch are passed over once its newest `perStage` are found.
        var taken: [NodeID: Int] = [:]
        var i = events.endIndex
        while i > events.startIndex {
            i -= 1
            guard Self.keeps(events[i]) else { continue }
            let node = events[i].node
            let count = taken[node, default: 0]
            guard count < perStage else { continue }
            taken[node] = count + 1
            var event = events[i]
            if event.id == 0 { event.id = firstID + EventID(i) }
            // In place (no copy of the stage's list per event).
            Self.keep(event, newerTaken: count, in: &byStage[node, default: []], limit: perStage)
        }
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

    /// Puts `event` into a stage's list (oldest first) before the `newerTaken` events of
    /// the same batch already put there, and drops the oldest past `limit`.
    private static func keep(_ event: StageEvent, newerTaken: Int, in kept: inout [StageEvent], limit: Int) {
        kept.insert(event, at: kept.count - newerTaken)
        if kept.count > limit { kept.removeFirst(kept.count - limit) }
    }

    /// Forgets the events of stages that `isGone` says the graph no longer has (pruned):
    /// no chain can start at them any more.
    mutating func forgetStages(where isGone: (NodeID) -> Bool) {
        for node in byStage.keys where isGone(node) { byStage[node] = nil }
    }

    /// Whether `event` is one a chain can pass through.
    private static func keeps(_ event: StageEvent) -> Bool {
        event.kind.payload.caused && event.kind != .delivered
    }

    /// The events kept, oldest first, each once: the ring, and before it the stages'
    /// own that are older than the ring's oldest (newer ones are in the ring already:
    /// it holds every caused event since its oldest).
    var events: [StageEvent] {
        let newest = ring.count < limit ? ring : Array(ring[next...] + ring[..<next])
        let oldestInRing = newest.first?.id ?? .max
        var older: [StageEvent] = []
        for kept in byStage.values {
            for event in kept where event.id < oldestInRing { older.append(event) }
        }
        older.sort { $0.id < $1.id }
        return older + newest
    }
}
