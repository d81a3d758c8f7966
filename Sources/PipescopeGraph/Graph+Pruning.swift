extension Graph {
    // MARK: - Pruning

    /// Removes ended subtrees, at any depth, whose top stage ended before
    /// `now - retention.seconds`, then the oldest ended pipelines beyond
    /// `retention.maxEndedPipelines`. A subtree counts as ended only when every stage
    /// in it ended, so nothing live is ever removed.
    public mutating func prune(now nanos: Int64, retention: Retention) {
        let cutoff = nanos - Int64(retention.seconds * 1e9)
        var ended: [NodeID: Bool] = [:]
        func isEnded(_ id: NodeID) -> Bool {
            guard let node = nodes[id] else { return true }
            // A live stage is not ended, whatever is upstream of it: most stages, and
            // no need to walk their upstream or remember them.
            guard node.status.isTerminal else { return false }
            if let known = ended[id] { return known }
            let result = node.children.allSatisfy(isEnded)
            ended[id] = result
            return result
        }
        func expired(_ id: NodeID) -> Bool {
            isEnded(id) && (nodes[id]?.endedNanos ?? .max) < cutoff
        }
        var doomedRoots = Set(roots.filter(expired))
        let endedRoots = roots.filter { isEnded($0) && !doomedRoots.contains($0) }
        doomedRoots.formUnion(endedRoots.prefix(max(0, endedRoots.count - retention.maxEndedPipelines)))
        for root in doomedRoots { remove(subtree: root) }
        roots.removeAll { doomedRoots.contains($0) }
        // Ended inner stages of live pipelines (flatMap's finished inner publishers).
        var stack = roots
        while let id = stack.popLast() {
            guard let children = nodes[id]?.children else { continue }
            let doomed = children.filter(expired)
            if !doomed.isEmpty {
                for child in doomed { remove(subtree: child) }
                nodes[id]?.children.removeAll { doomed.contains($0) }
                recorder.touch(id)
            }
            stack.append(contentsOf: nodes[id]?.children ?? [])
        }
        // A released owner is forgotten with its last stage.
        if owners.contains(where: { $0.value.releasedNanos != nil }) {
            let held = Set(roots.compactMap { nodes[$0]?.owner?.id })
            owners = owners.filter { $0.value.releasedNanos == nil || held.contains($0.key) }
        }
    }
}
