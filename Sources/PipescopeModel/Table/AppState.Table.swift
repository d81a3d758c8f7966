import PipescopeGraph

extension AppState {
    /// The pipelines table, the first screen: one row per pipeline, sorted by any column;
    /// pipelines from one place fold into one row (`×215`, ``PlaceFolds``), which `→` opens.
    ///
    /// The selection is a row's identity (``TableRowID``: a pipeline's root, or a folded
    /// row's place), not a row number: it stays on the same pipeline, or the same folded
    /// row, while rows re-sort, arrive and leave. A selected pipeline that folds into a
    /// closed row (a second one from its place came) selects that row, and a selected
    /// folded row that comes apart (one pipeline left) selects the one left. When the
    /// selected row itself leaves (pruned, or not yet made at the history cursor), the
    /// row now at its old position is selected and the reducer says so.
    ///
    /// `rows` is derived, like ``Tree``'s: rebuilt by ``refresh(_:)`` only when one of its
    /// inputs changed since (the graph on screen, the counts of events, the lints, the
    /// second the rates are read at, the sort, the ended switch), in time linear in the
    /// graph plus a sort; otherwise the message leaves it alone. Batches do not rebuild
    /// it: the next tick or key does, so a busy program costs a rebuild per tick, not
    /// per batch.
    public struct Table: Sendable {
        /// The selected row; nil until the table has a row.
        public internal(set) var selection: TableRowID?
        /// Whether pipelines from one place share a row (`F` turns it off and on).
        public internal(set) var folding = true
        /// The places whose folded rows are open (``PipelineRow/place``).
        public internal(set) var openPlaces: Set<Int> = [] { didSet { isUnsorted = true } }
        public internal(set) var sort: TableColumn = .rate { didSet { isUnsorted = true } }
        public internal(set) var descending = true { didSet { isUnsorted = true } }
        /// Per-pipeline event counts, folded from batches.
        public internal(set) var activity = PipelineActivity()
        /// The counts as they were at the history cursor (counted from the events kept up
        /// to it when it moves), so a past moment's rates, sparklines and LAST read no
        /// later event; nil while live.
        private var past: (position: Int, activity: PipelineActivity)?
        /// The counts the rows on screen read: the cursor's moment's in the past, else
        /// ``activity``.
        public var shownActivity: PipelineActivity { past?.activity ?? activity }
        /// The rows, sorted.
        public private(set) var rows = SortedRows()
        /// The first row on screen.
        public internal(set) var offset = 0
        /// Rows the table shows at once, from the resize message.
        public internal(set) var pageSize = 10
        /// The table's width inside its box, from the resize message.
        public internal(set) var width = 78
        /// The columns shown at ``width``, the sorted one among them.
        public var columns: TableColumns {
            TableColumns(width: width, locationWidth: locationWidth, timed: timed, sorted: sort)
        }
        /// Where the selected row was when the rows were last built, for when it leaves.
        private(set) var selectedIndex = 0
        /// The user chose the selected pipeline (rather than it being the first shown),
        /// so its leaving is worth a notice.
        private(set) var chosen = false
        /// The widest location, for the LOCATION column (0: none).
        public var locationWidth: Int { built.locationWidth }
        /// Whether a row has a TIME (TIME is shown only then).
        public private(set) var timed = false
        /// The rows by pipeline, kept between refreshes.
        private var built = PipelineRows()
        /// The pipelines whose lints or verdict changed since the rows were built, by
        /// root (nil: any may have).
        private var lintsChanged: Set<NodeID>? = []
        /// The sort changed: the rows need sorting again, not rebuilding.
        private var isUnsorted = false
        private var builtFrom: Inputs?

        /// What `rows` was built from.
        struct Inputs: Equatable {
            var graph: Int
            var activity: Int
            var lints: Int
            var second: Int64
            var hideEnded: Bool
            var folding: Bool
        }

        /// The selected row's position in `rows`.
        public var currentIndex: Int? { selection.flatMap { index(of: $0) } }

        /// The selected row, if it is on screen.
        public var selectedRow: PipelineRow? { currentIndex.map { rows[$0] } }

        /// The pipeline the selected row stands for: its own, or for a folded row the one
        /// the `pile-up` lint is on (its oldest live member, ``PlaceFolds``), which Enter,
        /// `t` and `e` open.
        public var selected: NodeID? {
            switch selection {
            case .pipeline(let root)?: return root
            case .place?: return selectedRow?.id
            case nil: return nil
            }
        }

        /// The row of pipeline `root` on screen, if it has one (not inside a closed folded row).
        public func index(of root: NodeID) -> Int? { index(of: .pipeline(root)) }

        /// The row `id` on screen, if it has one (where it was last, else a scan: cheaper
        /// than keeping a map of 10,000 rows up to date on every sort).
        public func index(of id: TableRowID) -> Int? {
            if selectedIndex < rows.count, rows[selectedIndex].rowID == id { return selectedIndex }
            return rows.position(of: id)
        }

        /// Whether `row` is a folded row shown open.
        public func isOpen(_ row: PipelineRow) -> Bool {
            guard row.fold != nil, let place = row.place else { return false }
            return openPlaces.contains(place)
        }

        /// Rebuilds the rows if an input changed. Returns the pipeline the user had
        /// selected that has left, with the one selected in its place, so the reducer can
        /// say so. (Before the user chooses, the first pipeline shown is selected, and
        /// its leaving is not news.)
        ///
        /// It takes the parts of the state it reads, not the state: a call given the whole
        /// state while changing its table would copy the table first (every row kept, at
        /// 10,000 pipelines most of a refresh).
        mutating func refresh(cursor: HistoryCursor, warnings: Warnings, now: Int64, hideEnded: Bool,
                              changes: GraphChanges?) -> (gone: PipelineRow, now: PipelineRow?)? {
            if let position = cursor.position {
                if past?.position != position {
                    past = (position, PipelineActivity(upTo: position, of: cursor.log, graph: cursor.graph))
                }
            } else {
                past = nil
            }
            let activity = shownActivity
            let inputs = Inputs(graph: cursor.graphVersion, activity: activity.version,
                                lints: warnings.version, second: now / 1_000_000_000, hideEnded: hideEnded,
                                folding: folding)
            let rebuild = inputs != builtFrom
            guard rebuild || isUnsorted else { return nil }
            let incremental = builtFrom?.hideEnded == inputs.hideEnded
            isUnsorted = false
            builtFrom = inputs
            let previous = selectedRow
            var unsorted: [PipelineRow] = []
            if rebuild {
                let sources = PipelineRows.Sources(
                    graph: cursor.graph, lints: warnings.lints, lintsVersion: warnings.version,
                    waits: warnings.waits, activity: activity, now: now, hideEnded: hideEnded)
                if incremental, let changes, let lintsChanged {
                    unsorted = built.update(from: sources, changed: lintsChanged.union(Self.pipelines(changes, in: sources.graph)))
                } else {
                    unsorted = built.rebuild(from: sources)
                }
                lintsChanged = []
                timed = unsorted.contains { $0.slowest != nil }
            }
            let folded = rebuild ? (folding ? PlaceFolds.fold(unsorted) : unsorted) : rows.built
            rows = SortedRows(built: folded, positions: PlaceFolds.positions(folded, by: sort, descending: descending, open: openPlaces))
            if let selection, let at = rows.position(of: selection) {
                selectedIndex = at
                return nil
            }
            // Folded in, or come apart: the row that now stands for it.
            if let selection, let home = rows.home(of: selection), let at = rows.position(of: home) {
                self.selection = home
                selectedIndex = at
                return nil
            }
            guard !rows.isEmpty else {
                selection = nil
                return chosen ? previous.map { ($0, nil) } : nil
            }
            let replacement = rows[min(selectedIndex, rows.count - 1)]
            selection = replacement.rowID
            selectedIndex = min(selectedIndex, rows.count - 1)
            return chosen ? previous.map { ($0, replacement) } : nil
        }

        /// Sorts the rows again if the sort changed since they were sorted, or a folded
        /// row was opened or closed, their contents as last built (the next refresh brings
        /// those up to date).
        mutating func sortAgain() {
            guard isUnsorted else { return }
            isUnsorted = false
            rows = SortedRows(built: rows.built,
                              positions: PlaceFolds.positions(rows.built, by: sort, descending: descending, open: openPlaces))
            if let selection, let at = rows.position(of: selection) { selectedIndex = at }
        }

        /// The rows a fresh table shows for `graph`, built as ``refresh(_:)`` builds them and
        /// in its default order (RATE descending, ties by id): `snapshot --json`'s
        /// pipelines. Without event counts every rate is 0, and LAST is the newest time
        /// the graph itself knows (a value, an end, a request, the making of a stage).
        static func rows(of graph: Graph, lints: [Lint], waits: Waits = Waits()) -> [PipelineRow] {
            let table = Table()
            var built = PipelineRows()
            // No activity: there is no rate to read at any time.
            return built.rebuild(from: .init(graph: graph, lints: lints, lintsVersion: 0, waits: waits,
                                             activity: PipelineActivity(), now: 0, hideEnded: false))
                .sorted(by: table.sort, descending: table.descending)
        }

        /// Notes the pipelines whose lints or verdict the warnings' refresh changed (nil:
        /// any may have), for the next refresh.
        mutating func noteLintsChanged(_ roots: Set<NodeID>?) {
            guard let roots else {
                lintsChanged = nil
                return
            }
            lintsChanged?.formUnion(roots)
        }

        /// The pipelines (roots) the graph's changes touched, and the roots among the stages
        /// touched or removed (gone, or adopted under another stage, their rows go).
        static func pipelines(_ changes: GraphChanges, in graph: Graph) -> Set<NodeID> {
            var roots = changes.removed
            for id in changes.touched {
                roots.insert(id)
                if let root = AppState.pipeline(of: id, in: graph) { roots.insert(root) }
            }
            return roots
        }

        /// The sortable column `step` places from the sorted one (wrapping), among those
        /// with something to show: at 80 columns `>` reaches TIME too, which is then shown.
        func sortColumn(_ step: Int) -> TableColumn { columns.sortColumn(from: sort, step: step) }

        /// Selects the row at `position` (clamped).
        mutating func select(row position: Int) {
            guard !rows.isEmpty else { return }
            let at = min(max(position, 0), rows.count - 1)
            selection = rows[at].rowID
            selectedIndex = at
            chosen = true
        }

        /// Selects pipeline `root`'s row, or the closed folded row it is in.
        mutating func select(pipeline root: NodeID) {
            select(.pipeline(root))
        }

        /// Selects row `id`, or the row that stands for it (``SortedRows/home(of:)``), if
        /// it has one.
        mutating func select(_ id: TableRowID) {
            guard let at = index(of: id) ?? rows.home(of: id).flatMap({ rows.position(of: $0) }) else { return }
            selection = rows[at].rowID
            selectedIndex = at
            chosen = true
        }

        /// Scrolls only as far as needed to keep the selected row visible.
        mutating func keepSelectionOnScreen() {
            offset = scrollOffset(keeping: currentIndex ?? 0, from: offset, page: pageSize, count: rows.count)
        }
    }
}
