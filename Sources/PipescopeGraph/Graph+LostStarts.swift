// MARK: - Stages whose subscribe the probe dropped

/// The stage numbers a graph never saw begin while the probe was dropping events: a
/// stage subscribed while the probe's buffer was full lost its subscribe event (and its
/// ``NodeInfo``), but its later events come in batches like any other. Without this, the
/// fold would ignore them (as it ignores a pruned stage's), and its values, its end, its
/// whole pipeline would be missing without a word.
///
/// Stage numbers are given in order and never reused, so a number skipped between two
/// stages inserted after a drop, or above the highest inserted, is such a stage; a number
/// below that was inserted and is missing now was pruned. Only while the graph knows of
/// drops (``Graph/dropped``) are numbers watched, so a graph that never dropped pays one
/// comparison an event.
///
/// ```swift
/// // #1 inserted, the buffer fills (#2's subscribe dropped), #3 inserted, then #2 sends:
/// graph.apply(StageEvent(.value, node: 2, time: t, text: "5"))
/// graph[2]?.operatorName   // "(subscribe dropped)": created from what its events say
/// ```
struct LostStarts: Sendable, Equatable {
    /// The highest stage number inserted (from a snapshot: its highest).
    var highest: NodeID = 0
    /// Numbers skipped after drops, oldest first; at most ``limit`` ranges.
    var gaps: [Range<NodeID>] = []

    /// A program that drops again and again keeps the newest ranges: its oldest lost
    /// stages are long ended.
    static let limit = 1_024

    /// Stage `id` was inserted; `dropping`: the probe had dropped events by then.
    mutating func inserted(_ id: NodeID, dropping: Bool) {
        if dropping, highest > 0, id > highest &+ 1 {
            gaps.append(highest &+ 1 ..< id)
            if gaps.count > Self.limit { gaps.removeFirst(gaps.count - Self.limit) }
        }
        if id > highest { highest = id }
    }

    /// Whether `id` may be a stage never inserted: above the highest, or in a gap. Cheap
    /// (two comparisons) for the stages of every ordinary event.
    func mayHaveLost(_ id: NodeID) -> Bool {
        if id > highest { return true }
        guard let first = gaps.first, let last = gaps.last else { return false }
        return id >= first.lowerBound && id < last.upperBound && gaps.contains { $0.contains(id) }
    }
}

extension Graph {
    /// The operator name of a stage created from its events (``LostStarts``).
    public static let droppedSubscribeName = "(subscribe dropped)"

    /// Before `event` is applied: when it is of a stage this graph never saw begin while
    /// the probe dropped events, creates the stage from what is known (its number, the
    /// thread and time of its first event kept), so that its events are shown, not lost.
    mutating func createIfStartWasDropped(_ event: StageEvent) {
        guard event.node != 0, lostStarts.mayHaveLost(event.node), nodes.index(forKey: event.node) == nil else { return }
        switch event.kind {
        case .subscription, .request, .demand, .value, .finished, .failed, .cancelled, .owned, .contractBroken:
            break
        case .unknown, .subscribe, .forward, .adopt, .feeds, .ownerReleased, .delivered:
            return
        }
        var info = NodeSummary(info: NodeInfo(
            id: event.node, operatorName: Self.droppedSubscribeName,
            publisherType: "a stage whose subscribe the probe dropped (its buffer was full): what it is and where it "
                + "was made are unknown", subscriber: "", thread: event.thread, createdNanos: event.time))
        // It began before its first event kept: it is past subscribing unless this is its subscription.
        if event.kind != .subscription { info.status = .active }
        insert(info)
    }
}
