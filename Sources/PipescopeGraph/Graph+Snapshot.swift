// MARK: - Snapshots: the graph as one message, and back

extension Graph {
    /// Starts over from a snapshot. Links between stages are rebuilt from each stage's
    /// own fields, after every stage is in place (an adopted stage's parent can be newer
    /// than the stage).
    public mutating func load(_ snapshot: GraphSnapshot) {
        let kept = pauses
        self = Graph()
        // The pauses are time, not stages: a snapshot does not replace them.
        pauses = kept
        for var node in snapshot.nodes {
            node.children = []
            node.sharers = []
            node.feeders = []
            node.feeds = []
            node.forwardsTo = nil
            nodes[node.id] = node
            index(publisherOf: node)
        }
        for state in snapshot.nodes {
            if let parent = state.parent, let p = nodes.index(forKey: parent), parent != state.id {
                nodes.values[p].children.append(state.id)
                // A snapshot from the wire carries no roles: learnt again from the links.
                if state.mergeRole == .none {
                    let role = mergeRole(of: state, under: nodes.values[p])
                    if role != .none { nodes[state.id]?.mergeRole = role }
                }
            } else {
                nodes[state.id]?.parent = nil
                roots.append(state.id)
            }
        }
        // An inner that joined a stream (a subject: ``MergeRole/stream``) is known at its
        // first value, by its subtree; one from the wire that had values before the snapshot
        // is known by its subtree now. Else a room's later messages would count as late
        // answers.
        for state in snapshot.nodes where state.values > 0 && state.mergeRole == .none {
            guard let i = nodes.index(forKey: state.id), nodes.values[i].mergeRole == .inner,
                  Self.isJoinedStream(state.id, in: self) else { continue }
            nodes.values[i].mergeRole = .stream
        }
        for state in snapshot.nodes {
            if let owner = state.subscriptionOwner { link(state.id, sharing: owner) }
            if let target = state.forwardsTo { forward(state.id, to: target) }
            for fed in state.feeds { feed(fed, from: state.id) }
        }
        owners = snapshot.owners
        // Numbers below its highest stage and outside its gaps are pruned (an older
        // probe's snapshot says neither: its highest stage then).
        lostStarts.highest = max(snapshot.highestStage, snapshot.nodes.last?.id ?? 0)
        lostStarts.gaps = snapshot.stageNumberGaps
        dropped = snapshot.dropped
        droppedByPipeline = snapshot.droppedByPipeline
        sequence = snapshot.sequence
    }

    /// The whole graph as a snapshot: what ``load(_:)`` turns back into this graph, but
    /// for a flatMap's ``InnerAnswers``, which keep only the inputs a live inner publisher
    /// was made for (``awaitedAnswers(of:)``).
    public func snapshot() -> GraphSnapshot {
        let stages = nodes.keys.sorted().compactMap { id -> NodeSummary? in
            guard var node = nodes[id] else { return nil }
            if node.innerAnswers?.inputs.isEmpty == false { node.innerAnswers = awaitedAnswers(of: node) }
            // Derived from the other stages' fields; load(_:) rebuilds them.
            node.children = []
            node.sharers = []
            node.feeders = []
            return node
        }
        var snapshot = GraphSnapshot(nodes: stages, owners: owners, dropped: dropped, sequence: sequence)
        snapshot.droppedByPipeline = droppedByPipeline
        snapshot.stageNumberGaps = lostStarts.gaps
        snapshot.highestStage = lostStarts.highest
        return snapshot
    }
}
