extension Graph {
    // MARK: - Pruning

    /// Removes ended subtrees, at any depth, whose top stage ended before
    /// `now - retention.seconds`, then the oldest ended pipelines beyond
    /// `retention.maxEndedPipelines` and, under each stage, the oldest ended inner subtrees
    /// beyond `retention.maxEndedInner` (oldest: first among its children). A subtree
    /// counts as ended only when every stage in it ended, so nothing live is ever removed.
    public mutating func prune(now nanos: Int64, retention: Retention) {
        var rule = EndedRule(now: nanos, retention: retention)
        func isEnded(_ id: NodeID) -> Bool { rule.isEnded(id, in: nodes) }
        func expired(_ id: NodeID) -> Bool { rule.expired(id, in: nodes) }
        func beyondCap(_ children: [NodeID]) -> [NodeID] { rule.beyondCap(children, in: nodes) }
        // One pass over the roots: each is asked once whether it expired, and only then
        // whether it ended.
        var doomedRoots = Set<NodeID>()
        var endedRoots: [NodeID] = []
        for root in roots {
            if expired(root) {
                doomedRoots.insert(root)
            } else if isEnded(root) {
                endedRoots.append(root)
            }
        }
        doomedRoots.formUnion(endedRoots.prefix(max(0, endedRoots.count - retention.maxEndedPipelines)))
        for root in doomedRoots { remove(subtree: root) }
        roots.removeAll { doomedRoots.contains($0) }
        forgetDrops(of: doomedRoots)
        // Ended inner stages of live pipelines (flatMap's finished inner publishers).
        var stack = roots
        while let id = stack.popLast() {
            guard let children = nodes[id]?.children else { continue }
            let doomed = children.filter(expired) + beyondCap(children)
            if !doomed.isEmpty {
                for child in doomed { remove(subtree: child) }
                let gone = Set(doomed)
                nodes[id]?.children.removeAll { gone.contains($0) }
                recorder.touch(id)
            }
            stack.append(contentsOf: nodes[id]?.children ?? [])
        }
        forgetReleasedOwners()
    }
}

extension Graph {
    // MARK: - Pruning what ended

    /// Prunes exactly as ``prune(now:retention:)`` does, looking only at `ended`: the
    /// stages of the graph that have ended (more may be named; every ended one must be).
    /// Only an ended stage can top a subtree that goes, so the walk from every root is
    /// not needed: the cost is in the ended stages, plus the roots only when pipelines go
    /// (or, with owners released, for the owners' step). Returns whether anything went.
    @discardableResult
    public mutating func prune(now nanos: Int64, retention: Retention, ended: Set<NodeID>) -> Bool {
        var rule = EndedRule(now: nanos, retention: retention)
        func isEnded(_ id: NodeID) -> Bool { rule.isEnded(id, in: nodes) }
        func expired(_ id: NodeID) -> Bool { rule.expired(id, in: nodes) }
        func beyondCap(_ children: [NodeID]) -> [NodeID] { rule.beyondCap(children, in: nodes) }
        // Roots first, as the full prune: the expired ones, then the oldest ended beyond
        // the limit, in the roots' order.
        var endedRoots: [NodeID] = []
        var doomedRoots = Set<NodeID>()
        var inner: [NodeID] = []
        for id in ended {
            guard let node = nodes[id] else { continue }
            if node.parent == nil {
                if expired(id) {
                    doomedRoots.insert(id)
                } else if isEnded(id) {
                    endedRoots.append(id)
                }
            } else {
                inner.append(id)
            }
        }
        if endedRoots.count > retention.maxEndedPipelines {
            var place: [NodeID: Int] = [:]
            for (i, root) in roots.enumerated() { place[root] = i }
            endedRoots.sort { place[$0, default: .max] < place[$1, default: .max] }
            doomedRoots.formUnion(endedRoots.prefix(endedRoots.count - retention.maxEndedPipelines))
        }
        var removed = !doomedRoots.isEmpty
        for root in doomedRoots { remove(subtree: root) }
        if removed {
            roots.removeAll { doomedRoots.contains($0) }
            forgetDrops(of: doomedRoots)
        }
        // Ended inner stages of live pipelines: each expired one with no expired stage
        // downstream of it goes (one that has goes with that one).
        var doomedUnder: [NodeID: [NodeID]] = [:]
        for id in inner.sorted() {
            guard let parent = nodes[id]?.parent, expired(id) else { continue }
            var above: NodeID? = parent
            var covered = false
            var steps = 0
            while let a = above, steps <= nodes.count {
                if expired(a) {
                    covered = true
                    break
                }
                above = nodes[a]?.parent
                steps += 1
            }
            if !covered { doomedUnder[parent, default: []].append(id) }
        }
        // Under each stage, the oldest ended inner subtrees beyond the cap, counted among
        // its children that did not expire: only stages with more ended stages under them
        // than the cap are looked at. (One that goes with an ancestor anyway loses
        // nothing more here.)
        var endedUnder: [NodeID: Int] = [:]
        for id in inner { if let parent = nodes[id]?.parent { endedUnder[parent, default: 0] += 1 } }
        for (parent, count) in endedUnder where count > retention.maxEndedInner {
            guard let children = nodes[parent]?.children else { continue }
            let over = beyondCap(children)
            if !over.isEmpty { doomedUnder[parent, default: []] += over }
        }
        for (parent, doomed) in doomedUnder {
            for child in doomed { remove(subtree: child) }
            let gone = Set(doomed)
            nodes[parent]?.children.removeAll { gone.contains($0) }
            recorder.touch(parent)
            removed = true
        }
        forgetReleasedOwners()
        return removed
    }
}

extension Graph {
    /// A released owner is forgotten with its last stage.
    private mutating func forgetReleasedOwners() {
        guard owners.contains(where: { $0.value.releasedNanos != nil }) else { return }
        let held = Set(roots.compactMap { nodes[$0]?.ownerID })
        owners = owners.filter { $0.value.releasedNanos == nil || held.contains($0.key) }
    }
}

/// The rule both prunes apply to a stage: its subtree has ended when every stage in it
/// ended, and has expired when, besides, its top stage ended before `now` less the
/// retention; and the ended subtrees under one stage beyond the retention's cap go,
/// oldest first. Remembers each ended stage's answer for one prune.
private struct EndedRule {
    let cutoff: Int64
    let cap: Int
    private var memo: [NodeID: Bool] = [:]

    init(now: Int64, retention: Retention) {
        cutoff = now - Int64(retention.seconds * 1e9)
        cap = retention.maxEndedInner
    }

    /// Reads the stage in place, by its index (`nodes[id]` copied the whole summary out
    /// for each question), and remembers only stages with something upstream: a stage
    /// with no children is answered by its own status, with no hashing.
    mutating func isEnded(_ id: NodeID, in nodes: [NodeID: NodeSummary]) -> Bool {
        guard let i = nodes.index(forKey: id) else { return true }
        // A live stage is not ended, whatever is upstream of it: most stages, and no
        // need to walk their upstream or remember them.
        guard nodes.values[i].status.isTerminal else { return false }
        let children = nodes.values[i].children
        if children.isEmpty { return true }
        if let known = memo[id] { return known }
        var result = true
        for child in children where !isEnded(child, in: nodes) {
            result = false
            break
        }
        memo[id] = result
        return result
    }

    mutating func expired(_ id: NodeID, in nodes: [NodeID: NodeSummary]) -> Bool {
        guard isEnded(id, in: nodes), let i = nodes.index(forKey: id) else { return false }
        return (nodes.values[i].endedNanos ?? .max) < cutoff
    }

    /// The ended subtrees among `children` (one stage's, oldest first) that did not
    /// expire but are beyond the newest `cap` of them: those go too.
    mutating func beyondCap(_ children: [NodeID], in nodes: [NodeID: NodeSummary]) -> [NodeID] {
        var kept: [NodeID] = []
        for child in children where isEnded(child, in: nodes) && !expired(child, in: nodes) { kept.append(child) }
        return kept.count > cap ? Array(kept.dropLast(cap)) : []
    }
}

extension Graph {
    /// A pruned pipeline's drop count goes with it.
    mutating func forgetDrops(of pruned: Set<NodeID>) {
        guard !droppedByPipeline.isEmpty else { return }
        for root in pruned { droppedByPipeline[root] = nil }
    }
}
