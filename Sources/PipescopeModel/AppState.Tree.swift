import PipescopeGraph

extension AppState {
    /// The pipeline tree pane: what is selected, folded, filtered and hidden, and the rows
    /// that follow from those and the graph on screen.
    ///
    /// `rows` and `matches` are derived. They are rebuilt once per message that changes
    /// one of their inputs (the graph, the folds, the filter, the ended switch), by
    /// ``refresh(from:)``, in time linear in the graph; setting an input only
    /// marks them stale.
    public struct Tree: Sendable {
        public internal(set) var selection: NodeID?
        public internal(set) var collapsed: Set<NodeID> = [] { didSet { isStale = true } }
        /// The `/` filter: a substring, or a regular expression when it is one. Empty: none.
        public internal(set) var filter = "" { didSet { isStale = true } }
        /// Ended pipelines are hidden (`x`).
        public internal(set) var hideEnded = false { didSet { isStale = true } }
        /// The tree as currently visible.
        public private(set) var rows: [TreeRow] = []
        /// Stages matching the filter, in row order.
        public private(set) var matches: [NodeID] = []
        /// The first row on screen. Kept in the state so that moving the selection inside
        /// the visible rows does not scroll the list.
        public internal(set) var offset = 0
        /// Rows the pane shows at once, from the resize message, so paging moves a screenful.
        public internal(set) var pageSize = 10

        /// An input changed since `rows` was built.
        private var isStale = false
        /// The ``HistoryCursor/graphVersion`` `rows` was built from.
        private var builtFrom = 0

        /// Rebuilds `rows` and `matches` from the graph on screen if it or another input
        /// changed since they were built; otherwise does nothing.
        mutating func refresh(from history: HistoryCursor) {
            guard isStale || history.graphVersion != builtFrom else { return }
            isStale = false
            builtFrom = history.graphVersion
            let graph = history.graph
            var all = graph.rows(collapsed: collapsed)
            if hideEnded {
                var ended = EndedPipelines(graph)
                all.removeAll { ended.contains($0.id) }
            }
            guard !filter.isEmpty else {
                rows = all
                matches = []
                return
            }
            let matcher = FilterMatcher(filter)
            let hits = Set(graph.nodes.values.filter { matcher.matches($0, location: graph.location(of: $0.id)?.location) }
                .map(\.id))
            var keep = hits
            for id in hits {
                var parent = graph[id]?.parent
                while let p = parent, keep.insert(p).inserted { parent = graph[p]?.parent }
            }
            rows = all.filter { keep.contains($0.id) }
            matches = rows.filter { hits.contains($0.id) && $0.isStage }.map(\.id)
        }

        /// Scrolls only as far as needed to keep the selected row visible.
        mutating func keepSelectionOnScreen() {
            let page = max(1, pageSize)
            let index = selection.flatMap { id in rows.firstIndex { $0.id == id && $0.isStage } } ?? 0
            if index < offset { offset = index }
            if index >= offset + page { offset = index - page + 1 }
            offset = max(0, min(offset, max(0, rows.count - page)))
        }
    }
}
