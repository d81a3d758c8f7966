import PipescopeGraph

/// The warnings list's groups (``LintGroup``), kept up to date pipeline by pipeline: a
/// tick that recomputes a few pipelines' lints regroups only the groups those lints were
/// or are in, not every lint of every pipeline (at 10,000 pipelines, most of a busy
/// tick). The groups are what ``LintGroup/grouping(_:in:)`` makes of all the lints (the
/// model tests compare them after every tick of random event streams).
///
/// ```swift
/// var groups = LintGroups()
/// groups.replace(root: 7, old: nil, with: share)   // pipeline 7's lints, each with its key
/// groups.settle()                                  // the groups, newest first
/// ```
struct LintGroups: Sendable {
    /// Each group's lints, by the root of the pipeline they are in.
    private var members: [LintGroup.Key: [NodeID: [Lint]]] = [:]
    /// Each group as last built.
    private var built: [LintGroup.Key: LintGroup] = [:]
    /// The groups whose members changed since they were built.
    private var stale: Set<LintGroup.Key> = []
    /// The groups in the warnings list's order, as of the last ``settle()``.
    private(set) var sorted: [LintGroup] = []

    mutating func removeAll() {
        members.removeAll(keepingCapacity: true)
        built.removeAll(keepingCapacity: true)
        stale.removeAll()
        sorted = []
    }

    /// Pipeline `root`'s lints were `old`'s and are now `fresh`'s (nil: none, the
    /// pipeline is new or gone).
    mutating func replace(root: NodeID, old: PipelineLints?, with fresh: PipelineLints?) {
        if let old {
            for key in old.keys where members[key]?.removeValue(forKey: root) != nil { stale.insert(key) }
        }
        if let fresh {
            for (lint, key) in zip(fresh.lints, fresh.keys) {
                members[key, default: [:]][root, default: []].append(lint)
                stale.insert(key)
            }
        }
    }

    /// Builds the groups that changed again, and orders them: the group with the newest
    /// stage first, kinds in name order for the same stage.
    mutating func settle() -> [LintGroup] {
        guard !stale.isEmpty else { return sorted }
        for key in stale {
            guard let byRoot = members[key], !byRoot.isEmpty else {
                members[key] = nil
                built[key] = nil
                continue
            }
            var lints: [Lint] = []
            var newest: (node: NodeID, root: NodeID)?
            for (root, own) in byRoot {
                lints.append(contentsOf: own)
                for lint in own where newest.map({ lint.node > $0.node }) ?? true { newest = (lint.node, root) }
            }
            lints.sort { $0.node > $1.node }
            built[key] = LintGroup(key: key, kind: lints[0].kind, lints: lints, root: newest?.root ?? 0)
        }
        stale.removeAll(keepingCapacity: true)
        sorted = built.values.sorted(by: LintGroup.listOrder)
        return sorted
    }
}
