import PipescopeGraph

/// Lints of one kind made by the same mistake in the same place, shown as one row of
/// the warnings list (`unretained-cancellable ×7 at story: forgotten request → Sink`):
/// a mistake in a loop or a screen opened again and again is one thing to fix, not seven.
///
/// ```swift
/// let groups = LintGroup.grouping(linter.lints(graph, now: now), in: graph)
/// groups[0].count      // 7
/// groups[0].newest     // the newest of them, whose stage the row names
/// ```
public struct LintGroup: Hashable, Sendable {
    /// What makes two lints the same mistake in the same place.
    public struct Key: Hashable, Sendable {
        public let parts: [String]
        /// The parts' hash, worked out once: a key is looked up on every tick.
        private let hash: Int

        init(parts: [String]) {
            self.parts = parts
            var hasher = Hasher()
            hasher.combine(parts)
            hash = hasher.finalize()
        }

        public static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.parts == b.parts }
        public func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    public var key: Key
    public var kind: LintKind
    /// The lints, newest stage first (stage ids are sequential).
    public var lints: [Lint]
    /// The root of the newest lint's pipeline: where the mistake is, until stages carry
    /// their source location.
    public var root: NodeID

    public var count: Int { lints.count }
    public var newest: Lint { lints[0] }

    /// **The** rule for "the same mistake in the same place", in one place: the same lint
    /// kind, on stages with the same operator and publisher type, in pipelines whose root
    /// has the same operator, publisher type and subscriber (the pipeline's shape) and the
    /// same source location (where the pipeline was made, when the tap recorded it).
    static func key(_ lint: Lint, stage: NodeSummary?, root: NodeSummary?) -> Key {
        Key(parts: [
            lint.kind.rawValue,
            stage?.operatorName ?? "", stage?.publisherType ?? "",
            root?.operatorName ?? "", root?.publisherType ?? "", root?.subscriber ?? "",
            root?.location.map { "\($0.file ?? $0.function ?? "?"):\($0.line ?? 0)" } ?? "",
        ])
    }

    /// `lints` grouped by ``key(_:stage:root:)``, the group with the newest stage first
    /// (kinds in name order for the same stage).
    /// Linear in the lints and the stages above them (each stage's root is found once).
    public static func grouping(_ lints: [Lint], in graph: Graph) -> [LintGroup] {
        var rootOf: [NodeID: NodeID] = [:]
        func root(of id: NodeID) -> NodeID {
            var walked: [NodeID] = []
            var current = id
            while walked.count <= graph.nodes.count {
                if let known = rootOf[current] {
                    current = known
                    break
                }
                guard let parent = graph[current]?.parent else { break }
                walked.append(current)
                current = parent
            }
            for stage in walked { rootOf[stage] = current }
            return current
        }
        return grouping(lints.map { lint in
            let top = root(of: lint.node)
            return (lint, key(lint, stage: graph[lint.node], root: graph[top]), top)
        })
    }

    /// Lints already keyed, each with its pipeline's root, grouped as
    /// ``grouping(_:in:)`` groups them (the warnings keep each pipeline's keys).
    static func grouping<Keyed: Sequence>(_ keyed: Keyed) -> [LintGroup]
        where Keyed.Element == (lint: Lint, key: Key, root: NodeID) {
        var groups: [Key: LintGroup] = [:]
        var roots: [NodeID: NodeID] = [:]
        for (lint, key, root) in keyed {
            roots[lint.node] = root
            groups[key, default: LintGroup(key: key, kind: lint.kind, lints: [], root: root)].lints.append(lint)
        }
        return groups.values.map { group in
            var group = group
            group.lints.sort { $0.node > $1.node }
            group.root = roots[group.lints[0].node] ?? group.root
            return group
        }.sorted(by: listOrder)
    }

    /// The warnings list's order: the group with the newest stage first, kinds in name
    /// order for the same stage.
    static func listOrder(_ a: LintGroup, _ b: LintGroup) -> Bool {
        a.newest.node != b.newest.node ? a.newest.node > b.newest.node : a.kind.rawValue < b.kind.rawValue
    }
}
