import PipescopeGraph
import PipescopeModel

/// A recording's messages as if it had been cut right after its `k`th event: what a
/// program killed at that moment would have left, and what the prefix oracle replays.
///
/// The batch that holds event `k` keeps its events up to it and the new stages they
/// make; its trailer's sequence counts only those. What was learnt about a stage after
/// it (where it was made, its code: found a batch or two later) is the stage's, not a
/// moment's: the cut batch carries what every later batch says of that. An older
/// recording's one text per stage per batch (`lastValues`) stays only for the stages
/// whose last value in the batch is kept, so a text lands on the event it belongs to.
///
/// ```swift
/// let messages = PrefixCut.messages(recording.messages, after: 40)
/// ```
enum PrefixCut {
    /// Events in `messages`' batches.
    static func eventCount(_ messages: [Message]) -> Int {
        messages.reduce(0) { count, message in
            if case .batch(let b) = message { return count + b.events.count }
            return count
        }
    }

    /// The index of the batch holding event `k` (1-based), and how many events come
    /// before that batch.
    static func batchHolding(_ k: Int, in messages: [Message]) -> (index: Int, before: Int)? {
        var seen = 0
        for (i, message) in messages.enumerated() {
            guard case .batch(let b) = message else { continue }
            if seen + b.events.count >= k, !b.events.isEmpty { return (i, seen) }
            seen += b.events.count
        }
        return nil
    }

    /// The messages before the batch holding event `k`, and that batch cut after it (see
    /// the type's documentation); nil when there is no event `k`.
    static func split(_ messages: [Message], after k: Int) -> (before: ArraySlice<Message>, last: EventBatch)? {
        guard k > 0, let (index, before) = batchHolding(k, in: messages), case .batch(var b) = messages[index] else {
            return nil
        }
        let keep = k - before
        let removed = b.events.count - keep
        var lastValue: [NodeID: Int] = [:]
        for (i, e) in b.events.enumerated() where e.kind == .value { lastValue[e.node] = i }
        b.events.removeLast(removed)
        let made = Set(b.events.filter { $0.kind == .subscribe }.map(\.node))
        b.nodes = b.nodes.filter { made.contains($0.id) }
        b.trailer.lastValues = b.trailer.lastValues.filter { (lastValue[$0.key] ?? .max) < keep }
        if b.trailer.sequence >= UInt64(removed) { b.trailer.sequence -= UInt64(removed) }
        for case .batch(let later) in messages[(index + 1)...] {
            b.locations += later.locations
            b.codes += later.codes
        }
        return (messages[..<index], b)
    }

    static func messages(_ messages: [Message], after k: Int) -> [Message]? {
        split(messages, after: k).map { Array($0.before) + [.batch($0.last)] }
    }
}
