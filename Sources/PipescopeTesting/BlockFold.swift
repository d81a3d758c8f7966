import Foundation
import PipescopeGraph
import PipescopeModel

/// One `findings { }` block's share of the process's events: the pipelines its task made
/// (their roots carry its scope, ``NodeInfo/scope``) and every stage under them, folded
/// into a ``FindingCollector`` of its own with the block's thresholds. Another block's
/// stages, or the program's own, never enter it, so neither do their lints.
struct BlockFold: Sendable {
    let scope: UInt64
    private(set) var collector: FindingCollector
    /// The block's stages: its roots, and the stages subscribed under them.
    private(set) var stages: Set<NodeID> = []
    /// Events for the block's stages in the last batch taken (the settle waits for none).
    private(set) var lastEvents = 0
    /// Events the probe dropped while the block ran (its findings may then miss some).
    private(set) var dropped: UInt64 = 0
    private var droppedBefore: UInt64?

    init(scope: UInt64, linter: Linter) {
        self.scope = scope
        collector = FindingCollector(linter: linter)
    }

    /// Folds the part of `batch` about the block's stages.
    mutating func take(_ batch: EventBatch) {
        if let before = droppedBefore { dropped = batch.trailer.dropped &- before } else { droppedBefore = batch.trailer.dropped }
        var own = EventBatch()
        own.trailer.sequence = batch.trailer.sequence
        own.trailer.gate = batch.trailer.gate
        for info in batch.nodes where info.scope == scope || info.parent.map(stages.contains) == true {
            stages.insert(info.id)
            own.nodes.append(info)
        }
        guard !stages.isEmpty else { return }
        // An owner's release is about the owner, not a stage: kept for the owner-leak lint.
        own.events = batch.events.filter { stages.contains($0.node) || $0.kind == .ownerReleased }
        own.locations = batch.locations.filter { stages.contains($0.node) }
        own.codes = batch.codes.filter { stages.contains($0.node) }
        lastEvents = own.events.count { $0.kind != .ownerReleased }
        if !own.events.isEmpty || !own.locations.isEmpty || !own.codes.isEmpty { collector.fold(own) }
    }

    /// The findings, judged at `now`; with `leaks`, the pipelines still active at the end
    /// that no live owner holds, those of one shape made at one place as one finding with
    /// a count (fifteen screens' subscriptions kept in one bag are one mistake).
    mutating func findings(at now: Int64, leaks: Bool) -> [Finding] {
        collector.finish(now: now)
        var found = collector.findings
        guard leaks else { return found }
        let graph = collector.graph
        var byPlace: [String: Int] = [:]
        for root in graph.roots.sorted() {
            guard let n = graph[root], !n.status.isTerminal else { continue }
            if let owner = graph.owner(of: root), owner.releasedNanos == nil { continue }
            let at = graph.lineToChange(root, ownCode: false)
            let key = "\(at.map { "\($0.file ?? "?"):\($0.line ?? 0)" } ?? "#\(root)") \(n.operatorName) \(n.subscriber)"
            if let i = byPlace[key] {
                found[i].count += 1
                continue
            }
            byPlace[key] = found.count
            found.append(Finding(kind: .leakedSubscription, message: Self.leakMessage(n), node: root, at: at,
                                 raisedNanos: now))
        }
        return found
    }

    static func leakMessage(_ n: NodeSummary) -> String {
        "still active when the test's block ended (\(n.operatorName) → \(n.subscriber)), held by nothing the block "
            + "released: its AnyCancellable was kept by something that outlives the test, or it was subscribed with "
            + "subscribe(_:) and never cancelled. Keep the AnyCancellable where the test releases it, or cancel it "
            + "(an object made before the block and kept after it: make it in the block, or set findsLeaks to false)."
    }
}
