// MARK: - Stages whose subscribe the probe dropped

/// The stage numbers a graph never saw begin: a stage subscribed while the probe's
/// buffer was full lost its subscribe event (and its ``NodeInfo``), but its later events
/// come in batches like any other. Without this, the fold would ignore them (as it
/// ignores a pruned stage's), and its values, its end, its whole pipeline would be
/// missing without a word.
///
/// Stage numbers are given in order and never reused, and a stage's subscribe comes
/// before its other events; two threads may append their subscribes in the other order,
/// so a number skipped is a gap until it comes. A number in a gap with no stage is a
/// stage whose subscribe was dropped (only a drop skips one for good); so is a number
/// above the highest inserted once the probe has said it dropped events (without drops,
/// such a number is a stage pruned before the snapshot the graph was loaded from); a
/// number below the highest that was inserted and is missing now was pruned. Gaps depend
/// on the events alone, so a history folding from a checkpoint decides on them as the
/// live fold did. A graph whose numbers come in order pays two comparisons an event.
///
/// ```swift
/// // #1 inserted, the buffer fills (#2's subscribe dropped), #3 inserted, then #2 sends:
/// graph.apply(StageEvent(.value, node: 2, time: t, text: "5"))
/// graph[2]?.operatorName   // "(subscribe dropped)": created from what its events say
/// ```
struct LostStarts: Sendable, Equatable {
    /// The highest stage number inserted (from a snapshot: its highest).
    var highest: NodeID = 0
    /// Numbers skipped, not inserted since, oldest first; at most ``limit`` ranges.
    var gaps: [Range<NodeID>] = []

    /// A program that loses subscribes again and again keeps the newest ranges: its
    /// oldest lost stages are long ended.
    static let limit = 1_024

    /// Stage `id` was inserted.
    mutating func inserted(_ id: NodeID) {
        if id > highest {
            if highest > 0, id > highest &+ 1 {
                gaps.append(highest &+ 1 ..< id)
                if gaps.count > Self.limit { gaps.removeFirst(gaps.count - Self.limit) }
            }
            highest = id
            return
        }
        // Late (another thread's subscribe came first): no longer a gap. Gaps are few and
        // the late one is near the newest, so the search starts there.
        guard let i = gaps.lastIndex(where: { $0.contains(id) }) else { return }
        let gap = gaps[i]
        let parts = [gap.lowerBound ..< id, id &+ 1 ..< gap.upperBound].filter { !$0.isEmpty }
        gaps.replaceSubrange(i...i, with: parts)
    }

    /// Whether `id` may be a stage never inserted: in a gap, or above the highest while
    /// the probe has dropped events (`dropping`; without drops, a number above the
    /// highest is a stage pruned before a snapshot the graph was loaded from). Cheap (two
    /// comparisons) for the stages of every ordinary event.
    func mayHaveLost(_ id: NodeID, dropping: Bool) -> Bool {
        // Nothing inserted yet (an empty start): no number to go by.
        if id > highest { return dropping && highest > 0 }
        guard let first = gaps.first, let last = gaps.last else { return false }
        return id >= first.lowerBound && id < last.upperBound && gaps.contains { $0.contains(id) }
    }
}

extension Graph {
    /// The operator name of a stage created from its events (``LostStarts``).
    public static let droppedSubscribeName = "(subscribe dropped)"

    /// Before `event` is applied: when it is of a stage this graph never saw begin (its
    /// subscribe was dropped), creates the stage from what is known (its number, the
    /// thread and time of its first event kept), so that its events are shown, not lost.
    mutating func createIfStartWasDropped(_ event: StageEvent) {
        guard event.node != 0, lostStarts.mayHaveLost(event.node, dropping: dropped > 0), nodes.index(forKey: event.node) == nil else { return }
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
