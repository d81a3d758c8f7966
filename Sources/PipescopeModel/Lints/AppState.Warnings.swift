import PipescopeGraph

extension AppState {
    /// The lifecycle warnings and the waits: which lints run, and what they found on the graph on
    /// screen as of the last tick (the tree's marks, the detail pane, the table's ⚠
    /// column and the warnings list all read these).
    ///
    /// **Incremental.** Each pipeline's share (``PipelineLints``) is kept from tick to
    /// tick. A tick given the graph's changes since the last one recomputes only the
    /// pipelines those changes touched, those whose root's owner was released, and those
    /// whose share time alone may have changed (``PipelineLints/due``); every other
    /// pipeline's is kept. Without changes (a snapshot, the cursor in history, another
    /// linter, time going back) it recomputes every pipeline. Either way the result is
    /// what ``fromScratch(_:now:linter:)`` computes from the whole graph (the model
    /// tests check it after every tick of random event streams).
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
        /// The pipelines whose verdict or count of lints the last refresh changed, by root
        /// (nil: any may have), for the table.
        private(set) var changed: Set<NodeID>?
        /// Each pipeline's share, by root.
        private var shares: [NodeID: PipelineLints] = [:]
        /// ``groups``, kept pipeline by pipeline.
        private var grouped = LintGroups()
        /// The pipelines by place, kept root by root while `pile-up` runs (empty otherwise).
        private var places = PlaceTally()
        /// What the shares were computed with and at (nil: nothing yet).
        private var basis: (linter: Linter, now: Int64)?

        /// The earliest time at which time alone may change a pipeline's lints or waits
        /// (`.max`: only an event can): when a run's fold must judge again between two
        /// batches (``FindingCollector``).
        var nextDue: Int64 { shares.values.reduce(Int64.max) { min($0, $1.due) } }

        /// Recomputes the lints on `graph` as of `now` (a recording passes its last
        /// event's time): every pipeline.
        mutating func refresh(_ graph: Graph, now: Int64) { refresh(graph, now: now, changes: nil) }

        /// Brings the lints on `graph` up to `now` from `changes`, the graph's changes
        /// since the last refresh (nil: unknown, recompute every pipeline).
        mutating func refresh(_ graph: Graph, now: Int64, changes: GraphChanges?) {
            guard let changes, let last = basis, last.linter == linter, now >= last.now else {
                recomputeAll(graph, now: now)
                return
            }
            basis = (linter, now)
            var gone = Set<NodeID>()
            var dirty = Set<NodeID>()
            for id in changes.removed where shares[id] != nil { gone.insert(id) }
            for id in changes.touched {
                // A root adopted under another stage, or pruned, is a pipeline no more.
                if shares[id] != nil, graph[id]?.parent != nil { gone.insert(id) }
                if let root = AppState.pipeline(of: id, in: graph) { dirty.insert(root) }
            }
            // The pipelines whose stages changed: the table may have counted their lints
            // on stages that moved since, so they are news to it whatever their lints do.
            let touched = dirty
            let releasing = !changes.owners.isEmpty
            for (root, share) in shares where share.due <= now || (releasing && share.owner.map(changes.owners.contains) == true) {
                dirty.insert(root)
            }
            // A place's pipelines changed: its holder's `pile-up` lint may have (the count
            // is in its message), and a new holder takes the lint over.
            if linter.readsPlaces {
                for root in gone { dirty.formUnion(places.remove(root: root)) }
                for root in touched { dirty.formUnion(places.update(root: root, in: graph)) }
            }
            // Only roots are pipelines: a stage adopted or pruned since is gone, even when due.
            dirty = dirty.filter { root in
                guard let node = graph[root], node.parent == nil else {
                    if shares[root] != nil { gone.insert(root) }
                    return false
                }
                return true
            }
            var lintsChanged = false
            var verdictsChanged = false
            var changed = Set<NodeID>()
            for root in gone {
                guard let old = shares.removeValue(forKey: root) else { continue }
                grouped.replace(root: root, old: old, with: nil)
                waits.replace(old.waits, with: nil, now: now)
                lintsChanged = lintsChanged || !old.lints.isEmpty
                verdictsChanged = verdictsChanged || !old.waits.pipelines.isEmpty
                changed.insert(root)
            }
            for root in dirty {
                let fresh = PipelineLints(root: root, of: graph, now: now, linter: linter, places: places)
                let old = shares.updateValue(fresh, forKey: root)
                let lintsDiffer = old?.lints ?? [] != fresh.lints
                // Lints that stay the same can still group differently (a location arrived).
                if lintsDiffer || old?.keys ?? [] != fresh.keys { grouped.replace(root: root, old: old, with: fresh) }
                let verdictDiffers = old?.waits.pipelines ?? [:] != fresh.waits.pipelines
                lintsChanged = lintsChanged || lintsDiffer
                verdictsChanged = verdictsChanged || verdictDiffers
                // The table reads a pipeline's verdict and how many lints it has, not
                // their messages (a stalled lint's age changes every second), on stages
                // as they were when it last walked them.
                if verdictDiffers || old?.lints.count != fresh.lints.count || touched.contains(root) { changed.insert(root) }
                if lintsDiffer || old?.waits != fresh.waits { waits.replace(old?.waits, with: fresh.waits, now: now) }
            }
            waits.replace(nil, with: nil, now: now)
            if lintsChanged { lints = Self.merged(shares) }
            finish(lintsChanged: lintsChanged, verdictsChanged: verdictsChanged)
            self.changed = changed
        }

        /// Every pipeline's share computed again.
        private mutating func recomputeAll(_ graph: Graph, now: Int64) {
            basis = (linter, now)
            let before = waits.pipelines
            shares.removeAll(keepingCapacity: true)
            grouped.removeAll()
            var merged = Waits()
            places = linter.readsPlaces ? PlaceTally(graph) : PlaceTally()
            for root in graph.roots {
                let share = PipelineLints(root: root, of: graph, now: now, linter: linter, places: places)
                merged.replace(nil, with: share.waits, now: now)
                shares[root] = share
                grouped.replace(root: root, old: nil, with: share)
            }
            merged.replace(nil, with: nil, now: now)
            waits = merged
            let fresh = Self.merged(shares)
            let lintsChanged = fresh != lints
            lints = fresh
            finish(lintsChanged: lintsChanged, verdictsChanged: before != waits.pipelines)
            changed = nil
        }

        private mutating func finish(lintsChanged: Bool, verdictsChanged: Bool) {
            if lintsChanged || verdictsChanged { version &+= 1 }
            if lintsChanged { nodes = Set(lints.map(\.node)) }
            groups = grouped.settle()
        }

        /// The pipelines' lints as one list in stage order, each stage's in the order its
        /// pipeline lists them (a stage is in one pipeline).
        private static func merged(_ shares: [NodeID: PipelineLints]) -> [Lint] {
            var keyed: [(node: NodeID, at: Int, lint: Lint)] = []
            for share in shares.values {
                for (at, lint) in share.lints.enumerated() { keyed.append((lint.node, at, lint)) }
            }
            keyed.sort { $0.node != $1.node ? $0.node < $1.node : $0.at < $1.at }
            return keyed.map(\.lint)
        }

        /// The waits, lints and groups of `graph` at `now`, from every stage: what the
        /// incremental refresh must always agree with (the tests compare them).
        static func fromScratch(_ graph: Graph, now: Int64, linter: Linter)
            -> (waits: Waits, lints: [Lint], groups: [LintGroup]) {
            let verdicts = Waits(graph, now: now, after: linter.stalledAfter)
            let lints = linter.lints(graph, now: now, waits: verdicts)
            return (verdicts, lints, LintGroup.grouping(lints, in: graph))
        }
    }
}
