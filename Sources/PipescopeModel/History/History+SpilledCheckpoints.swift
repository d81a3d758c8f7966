import PipescopeGraph

/// Checkpoints among the events on disk go to disk too (``SpilledCheckpoints``): a
/// checkpoint is the whole graph of its moment, so keeping one every
/// ``History/spilledSpan`` events in memory grew with the recording (about 1 KB for every
/// stage the program made, in a replay of 10,000,000 events). In memory stays where each
/// is; a jump reads the one before it back (a few milliseconds for thousands of stages)
/// and folds on from it as from one in memory.
extension History {
    /// A location or code place learnt after checkpoints holding its stage went to disk:
    /// those at or before `upTo` get it when read back, as the ones in memory got it.
    struct LateFix: Sendable {
        var upTo: Int
        var locations: [LocatedStage]
        var codes: [StageCode]
    }

    /// Writes the checkpoints below `index` (among the events just spilled) to disk, but
    /// the newest of them: thinning may still drop that one once the events after it
    /// spill too (``thinCheckpoints(below:)``). One that cannot be written stays in memory.
    mutating func moveCheckpointsToDisk(below index: Int, in spilled: HistorySpill) {
        guard let newestBelow = checkpoints.lastIndex(where: { $0.position < index }), newestBelow > 0 else { return }
        var moved = 0
        for checkpoint in checkpoints[..<newestBelow] {
            guard let record = try? spilled.checkpoints.write(checkpoint.graph, at: checkpoint.position) else { break }
            spilledCheckpoints.append(record)
            newestStageOnDisk = max(newestStageOnDisk, checkpoint.graph.nodes.keys.max() ?? 0)
            moved += 1
        }
        checkpoints.removeFirst(moved)
    }

    /// The checkpoint on disk at or before `position`, read back (with the locations
    /// learnt since it was written): its position and graph. An earlier one when it
    /// cannot be read; nil when none can (the caller folds from ``base``).
    func spilledCheckpoint(atOrBefore position: Int) -> (position: Int, graph: Graph)? {
        guard let spilled, !spilledCheckpoints.isEmpty else { return nil }
        var low = 0, high = spilledCheckpoints.count
        while low < high {
            let mid = (low + high) / 2
            if spilledCheckpoints[mid].position <= position { low = mid + 1 } else { high = mid }
        }
        for record in spilledCheckpoints[..<low].reversed() {
            guard var graph = spilled.checkpoints.graph(record) else { continue }
            for fix in lateFixes where record.position <= fix.upTo {
                graph.locate(fix.locations)
                graph.place(fix.codes)
            }
            return (record.position, graph)
        }
        return nil
    }

    /// Forgets the checkpoints on disk at or before `position` (the history now starts
    /// there), and the late locations only they needed.
    mutating func forgetSpilledCheckpoints(upTo position: Int) {
        spilledCheckpoints.removeAll { $0.position <= position }
        let oldest = spilledCheckpoints.first?.position ?? .max
        lateFixes.removeAll { $0.upTo < oldest }
    }

    /// Keeps the locations and code places of a batch that concern stages a checkpoint on
    /// disk may hold (those not newer than the newest such stage), for those checkpoints.
    mutating func rememberLate(_ locations: [LocatedStage], _ codes: [StageCode]) {
        guard let newest = spilledCheckpoints.last?.position else { return }
        let located = locations.filter { $0.node <= newestStageOnDisk }
        let placed = codes.filter { $0.node <= newestStageOnDisk }
        guard !located.isEmpty || !placed.isEmpty else { return }
        lateFixes.append(LateFix(upTo: newest, locations: located, codes: placed))
    }
}
