import PipescopeGraph

/// What happens to events that leave memory: to the spill (``HistorySpill``), where they
/// stay reachable, or evicted (folded into the graph before the first kept event).
extension History {
    /// Once there are ``limit`` and a sixteenth more events in memory, the oldest leave
    /// it, down to ``limit``: exactly, not a checkpoint span at a time (a span can be a
    /// quarter of the history); the slack makes that one move per `limit / 16` events.
    /// With a spill they go to disk and stay reachable; without one (or when it cannot be
    /// written) they are evicted.
    mutating func evict() {
        guard entries.count > limit + limit / 16 else { return }
        let newStart = end - limit
        if spill != nil, spillOut(below: newStart) { return }
        forget(below: newStart)
    }

    /// Moves the entries below `index` to the spill, with their texts; thins the
    /// checkpoints among them (see ``spilledSpan``) and keeps the disk budget. False when
    /// the spill cannot take them (the caller evicts them instead).
    mutating func spillOut(below index: Int) -> Bool {
        guard let options = spill else { return false }
        if spilled == nil || spilled?.end != memoryStart {
            // None yet, or another copy of this history wrote its own events there: the
            // past before this copy's window stays readable only until this copy starts
            // files of its own, so it is folded into `base` first (evicted).
            forget(below: memoryStart)
            spilled = HistorySpill(options, from: memoryStart)
        }
        guard let spilled else { return false }
        let count = index - memoryStart
        var moving: [Int: String] = [:]
        while let oldest = texts.first, oldest.index < index {
            moving[oldest.index] = oldest.text
            texts.removeFirst()
        }
        // The descriptions of the stages subscribed among them go too.
        var described: [(node: NodeID, index: Int, bytes: [UInt8])] = []
        for (k, entry) in entries.prefix(count).enumerated() where entry.kind == .subscribe {
            if let info = infos[entry.node] { described.append((entry.node, memoryStart + k, NodeInfoBytes.encode(info))) }
        }
        do {
            let offsets = try spilled.write(Array(entries.prefix(count)), texts: moving,
                                            blobs: described.map { ($0.index, $0.bytes) }, at: memoryStart)
            try spilled.descriptions.add(zip(described, offsets).map { ($0.node, $1) })
            for d in described { infos[d.node] = nil }
        } catch {
            // The disk is full or not writable: say so, and from here on evict as without
            // a spill (what is on disk is folded into `base` while it can still be read).
            spillFailure = "\(error)"
            for (i, text) in moving.sorted(by: { $0.key > $1.key }) { texts.prepend((i, text)) }
            forget(below: memoryStart)
            self.spilled = nil
            self.spill = nil
            return false
        }
        entries.removeFirst(count)
        memoryStart = index
        thinCheckpoints(below: index)
        moveCheckpointsToDisk(below: index, in: spilled)
        if let drop = spilled.overBudget(keeping: memoryStart) {
            forget(below: drop)
            spilled.drop(below: drop)
        }
        return true
    }

    /// Keeps the checkpoints below `index` (on disk) about ``spilledSpan`` apart: one is
    /// dropped when its neighbours are within that of each other. Their number then grows
    /// with the history's length over ``spilledSpan``, not over ``stride(for:)``.
    mutating func thinCheckpoints(below index: Int) {
        let span = max(diskCheckpointSpan, stride(for: base))
        var kept: [(position: Int, graph: Graph)] = []
        kept.reserveCapacity(checkpoints.count)
        var previous = spilledCheckpoints.last?.position ?? start
        for (i, checkpoint) in checkpoints.enumerated() {
            let next = i + 1 < checkpoints.count ? checkpoints[i + 1].position : end
            if checkpoint.position < index, next <= index, next - previous <= span { continue }
            kept.append(checkpoint)
            previous = checkpoint.position
        }
        checkpoints = kept
    }

    /// Evicts the events below `newStart`: folded into `base` (from the last checkpoint
    /// before it, if any), so `base` stays the exact graph before the first kept event.
    mutating func forget(below newStart: Int) {
        guard newStart > start else { return }
        var graph = base
        var from = start
        if let last = checkpointIndex(atOrBefore: newStart) {
            graph = checkpoints[last].graph
            from = checkpoints[last].position
            checkpoints.removeFirst(last + 1)
            forgetSpilledCheckpoints(upTo: newStart)
        } else if let onDisk = spilledCheckpoint(atOrBefore: newStart) {
            (from, graph) = onDisk
            forgetSpilledCheckpoints(upTo: newStart)
        }
        base = Graph()  // `graph` may now be the only reference: the fold copies nothing
        var described: [NodeID] = []
        forEachEntry(in: from..<newStart) { index, entry in
            let event = self.event(entry, index: index)
            if event.kind == .subscribe, let info = info(of: event.node) { graph.insert(info) }
            graph.apply(event)
        }
        // A stage's NodeInfo is needed only to replay its subscribe event.
        forEachEntry(in: start..<newStart) { _, entry in
            if entry.kind == .subscribe { described.append(entry.node) }
        }
        // On disk only by the history that writes the spill: a copy that diverged (and
        // starts a spill of its own) must not change the one the original still reads.
        let writer = spilled?.end == memoryStart ? spilled : nil
        for node in described {
            infos[node] = nil
            writer?.descriptions.remove(node)
        }
        base = graph
        if newStart > memoryStart {
            entries.removeFirst(newStart - memoryStart)
            memoryStart = newStart
        }
        start = newStart
        while let oldest = texts.first, oldest.index < memoryStart { texts.removeFirst() }
        // Keep the run the oldest kept event is in.
        let firstKept = idRuns.lastIndex { $0.position <= start + 1 } ?? 0
        if firstKept > 0 { idRuns.removeFirst(firstKept) }
    }

    /// Changes the description of a stage whose subscribe event is on disk (where it was
    /// made, its code: learnt a batch or two after it), writing it again.
    mutating func redescribe(_ node: NodeID, _ change: (inout NodeInfo) -> Void) {
        guard var info = info(of: node), let spilled else { return }
        change(&info)
        if let offset = try? spilled.rewrite(NodeInfoBytes.encode(info)) {
            spilled.descriptions.set(node, offset: offset)
        }
    }
}
