/// Stages by the publisher they were subscribed to (``NodeSummary/publisher``): which
/// stages come from one publisher, for the detail pane and the `repeated-work` lint.
///
/// ```swift
/// // let request = Deferred { Future { … } }; request.map(a).sink…; request.map(b).sink…
/// graph.stages(subscribedTo: graph[deferred1]!.publisher)   // [deferred1, deferred2]
/// ```
extension Graph {
    /// The stages in the graph subscribed to publisher `publisher`, oldest first: those
    /// live when the newest of them subscribed, and it; none for 0 (no identity).
    public func stages(subscribedTo publisher: UInt64) -> [NodeID] {
        publisher == 0 ? [] : publishers[publisher] ?? []
    }

    /// The other stages subscribed to the same publisher as stage `id` while it lived,
    /// oldest first. The publisher's number is an address, free again once all its stages
    /// ended: a stage subscribed after `id` ended is another publisher's.
    public func samePublisher(as id: NodeID) -> [NodeID] {
        guard let node = nodes[id] else { return [] }
        let end = node.endedNanos ?? .max
        return stages(subscribedTo: node.publisher).filter { other in
            guard other != id, let o = nodes[other] else { return false }
            return o.createdNanos < end && (o.endedNanos ?? .max) > node.createdNanos
        }
    }

    /// Stages that ended before `node` subscribed leave the list: none of them can have
    /// run at the same time as it, and a publisher's address is free for a new one once
    /// every stage subscribed to it has ended (the tap holds it only while one lives). A
    /// program that makes and drops a subject a second reuses a few addresses for ever:
    /// without this, their lists grew with every pipeline the graph still kept, and
    /// removing one from them cost the whole list (the 100,000-pipeline soak test: 10x
    /// slower, 320 MiB).
    mutating func index(publisherOf node: NodeSummary) {
        guard node.publisher != 0 else { return }
        var ids = publishers.removeValue(forKey: node.publisher) ?? []
        // By time, not status: a graph loaded from a snapshot indexes stages that ended
        // after `node` subscribed, and those ran at the same time as it.
        ids.removeAll { id in nodes[id].map { ($0.endedNanos ?? .max) <= node.createdNanos } ?? true }
        ids.append(node.id)
        publishers[node.publisher] = ids
    }

    mutating func unindex(publisherOf node: NodeSummary) {
        guard node.publisher != 0 else { return }
        publishers[node.publisher]?.removeAll { $0 == node.id }
        if publishers[node.publisher]?.isEmpty == true { publishers[node.publisher] = nil }
    }
}
