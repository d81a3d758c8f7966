/// Stages by the publisher they were subscribed to (``NodeSummary/publisher``): which
/// stages come from one publisher, for the detail pane and the `repeated-work` lint.
///
/// ```swift
/// // let request = Deferred { Future { … } }; request.map(a).sink…; request.map(b).sink…
/// graph.stages(subscribedTo: graph[deferred1]!.publisher)   // [deferred1, deferred2]
/// ```
extension Graph {
    /// The stages in the graph subscribed to publisher `publisher`, oldest first; none
    /// for 0 (no identity).
    public func stages(subscribedTo publisher: UInt64) -> [NodeID] {
        publisher == 0 ? [] : publishers[publisher] ?? []
    }

    /// The other stages subscribed to the same publisher as stage `id`, oldest first.
    public func samePublisher(as id: NodeID) -> [NodeID] {
        guard let node = nodes[id] else { return [] }
        return stages(subscribedTo: node.publisher).filter { $0 != id }
    }

    mutating func index(publisherOf node: NodeSummary) {
        guard node.publisher != 0 else { return }
        publishers[node.publisher, default: []].append(node.id)
    }

    mutating func unindex(publisherOf node: NodeSummary) {
        guard node.publisher != 0 else { return }
        publishers[node.publisher]?.removeAll { $0 == node.id }
        if publishers[node.publisher]?.isEmpty == true { publishers[node.publisher] = nil }
    }
}
