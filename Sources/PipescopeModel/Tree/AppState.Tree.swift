import PipescopeGraph

extension AppState {
    /// The pipeline tree pane: what is selected, folded, opened, filtered and hidden, and
    /// the rows that follow from those and the graph on screen.
    ///
    /// `rows`, `matches`, `hiddenEnded` and the lookups beside them are derived. They are
    /// rebuilt once per message that changes one of their inputs (the graph, the folds,
    /// the open groups, the filter, the ended switch), by ``refresh(from:)``, in time
    /// linear in the graph; setting an input only marks them stale. Drawing reads them
    /// and never walks a group's members.
    public struct Tree: Sendable {
        /// The selected row: a stage, or a group of ended stages. Nil: the first row.
        public internal(set) var selected: TreeSelection?
        /// The selected stage; nil when nothing is selected yet or a group is.
        public internal(set) var selection: NodeID? {
            get { if case .stage(let id) = selected { return id } else { return nil } }
            set { selected = newValue.map(TreeSelection.stage) }
        }
        public internal(set) var collapsed: Set<NodeID> = [] { didSet { isStale = true } }
        /// Groups opened with `→`.
        public internal(set) var expandedGroups: Set<StageGroup.ID> = [] { didSet { isStale = true } }
        /// The `/` filter: a substring, or a regular expression when it is one. Empty: none.
        /// While it is set, every stage has its own row (a search shows each match).
        public internal(set) var filter = "" { didSet { isStale = true } }
        /// Ended stages are hidden (`x`): whole pipelines, and ended inner stages of live ones.
        public internal(set) var hideEnded = false { didSet { isStale = true } }
        /// Only this pipeline (its root) is shown: the tree opened from a table row with
        /// Enter. Nil: every pipeline.
        public internal(set) var scope: NodeID? { didSet { isStale = true } }
        /// The tree as currently visible.
        public private(set) var rows: [TreeRow] = []
        /// Stages matching the filter, in row order.
        public private(set) var matches: [NodeID] = []
        /// How many stages `hideEnded` hides.
        public private(set) var hiddenEnded = 0
        /// The first row on screen. Kept in the state so that moving the selection inside
        /// the visible rows does not scroll the list.
        public internal(set) var offset = 0
        /// Rows the pane shows at once, from the resize message, so paging moves a screenful.
        public internal(set) var pageSize = 10

        /// Where each selectable row is in `rows`.
        private var rowIndex: [TreeSelection: Int] = [:]
        /// The closed group each hidden member is in, so a mark (⚠) or a selection on a
        /// member finds its group's row without walking the groups.
        public private(set) var groupOf: [NodeID: StageGroup.ID] = [:]
        /// An input changed since `rows` was built.
        private var isStale = false
        /// The ``HistoryCursor/graphVersion`` `rows` was built from.
        private var builtFrom = 0

        /// The selected row, or the first selectable row when nothing is selected.
        public var current: TreeSelection? {
            selected ?? rows.lazy.compactMap(\.selection).first
        }

        /// Where the ``current`` row is in `rows`.
        public var currentIndex: Int? { current.flatMap { rowIndex[$0] } }

        /// The row of `selection`, if it has one on screen.
        public func index(of selection: TreeSelection) -> Int? { rowIndex[selection] }

        /// The selected group, when the selection is on one.
        public var selectedGroup: StageGroup? {
            guard case .group? = current, let index = currentIndex else { return nil }
            return rows[index].group
        }

        /// Rebuilds the derived rows from the graph on screen if it or another input
        /// changed since they were built; otherwise does nothing.
        /// `waits`: where each pipeline waits, so a filter keeps the stage holding a kept
        /// pipeline's wait (and the stages between it and the root) on screen.
        mutating func refresh(from history: HistoryCursor, waits: Waits = Waits()) {
            guard isStale || history.graphVersion != builtFrom else { return }
            isStale = false
            builtFrom = history.graphVersion
            let graph = history.graph
            let layout = TreeLayout(collapsed: collapsed, expanded: expandedGroups, grouping: filter.isEmpty,
                                    hideEnded: hideEnded, root: scope)
            let laid = layout.layout(graph)
            hiddenEnded = laid.hiddenEnded
            let all = laid.rows
            if filter.isEmpty {
                rows = all
                matches = []
            } else {
                let matcher = FilterMatcher(filter)
                let hits = Set(graph.nodes.values
                    .filter { matcher.matches($0, location: graph.location(of: $0.id)?.location) }
                    .map(\.id))
                var keep = hits
                for id in hits {
                    var parent = graph[id]?.parent
                    while let p = parent, keep.insert(p).inserted { parent = graph[p]?.parent }
                }
                // A filter never hides where a pipeline it keeps waits: the stage holding
                // the wait (a source upstream of the matches, say) stays, with its path.
                for root in keep where graph[root]?.parent == nil {
                    guard let holder = waits.pipeline(root)?.at, holder != root else { continue }
                    var id: NodeID? = holder
                    while let stage = id, keep.insert(stage).inserted { id = graph[stage]?.parent }
                }
                rows = all.filter { keep.contains($0.id) }
                matches = rows.filter { hits.contains($0.id) && $0.isStage }.map(\.id)
            }
            rowIndex = [:]
            groupOf = [:]
            for (i, row) in rows.enumerated() {
                guard let selection = row.selection else { continue }
                rowIndex[selection] = i
                if let group = row.group, row.isCollapsed {
                    for member in group.members { groupOf[member] = group.id }
                }
            }
        }

        /// Scrolls only as far as needed to keep the selected row visible.
        mutating func keepSelectionOnScreen() {
            offset = scrollOffset(keeping: currentIndex ?? 0, from: offset, page: pageSize, count: rows.count)
        }
    }
}
