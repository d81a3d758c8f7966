import PipescopeGraph

extension AppState {
    /// The lifecycle warnings and the waits: which lints run, and what they found on the graph on
    /// screen as of the last tick (the tree's marks, the detail pane, the table's ⚠
    /// column and the warnings list all read these).
    public struct Warnings: Sendable {
        /// Which lints run (and which are allowed with -A).
        public var linter = Linter()
        /// Where each stage and pipeline waits, as of the last tick (``Waits``), with the
        /// linter's ``Linter/stalledAfter`` as the threshold; the `stalled` lints come
        /// from these.
        public private(set) var waits = Waits()
        /// The current warnings, recomputed on every tick.
        public private(set) var lints: [Lint] = []
        /// The stages that have a warning.
        public private(set) var nodes: Set<NodeID> = []
        /// The warnings list's rows: the same mistake in the same place once, with a
        /// count, newest first.
        public private(set) var groups: [LintGroup] = []
        /// Changes whenever the lints are recomputed differently.
        private(set) var version = 0

        /// Recomputes the lints on `graph` as of `now` (a recording passes its last
        /// event's time).
        mutating func refresh(_ graph: Graph, now: Int64) {
            let verdicts = Waits(graph, now: now, after: linter.stalledAfter)
            let fresh = linter.lints(graph, now: now, waits: verdicts)
            if fresh != lints || verdicts.pipelines != waits.pipelines { version &+= 1 }
            waits = verdicts
            lints = fresh
            nodes = Set(lints.map(\.node))
            groups = LintGroup.grouping(lints, in: graph)
        }
    }
}
