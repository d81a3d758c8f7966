import PipescopeGraph

extension AppState {
    /// The pipelines table, the first screen: one row per pipeline, sorted by any column.
    ///
    /// The selection is a pipeline (its root's id), not a row number: it stays on the
    /// same pipeline while rows re-sort, arrive and leave. When the selected pipeline
    /// itself leaves (pruned, or not yet made at the history cursor), the row now at its
    /// old position is selected and the reducer says so.
    ///
    /// `rows` is derived, like ``Tree``'s: rebuilt by ``refresh(_:)`` only when one of its
    /// inputs changed since (the graph on screen, the counts of events, the lints, the
    /// second the rates are read at, the sort, the ended switch), in time linear in the
    /// graph plus a sort; otherwise the message leaves it alone. Batches do not rebuild
    /// it: the next tick or key does, so a busy program costs a rebuild per tick, not
    /// per batch.
    public struct Table: Sendable {
        /// The selected pipeline's root; nil until the table has a row.
        public internal(set) var selected: NodeID?
        public internal(set) var sort: TableColumn = .rate { didSet { isUnsorted = true } }
        public internal(set) var descending = true { didSet { isUnsorted = true } }
        /// Per-pipeline event counts, folded from batches.
        public internal(set) var activity = PipelineActivity()
        /// The rows, sorted.
        public private(set) var rows = SortedRows()
        /// The first row on screen.
        public internal(set) var offset = 0
        /// Rows the table shows at once, from the resize message.
        public internal(set) var pageSize = 10
        /// The table's width inside its box, from the resize message.
        public internal(set) var width = 78
        /// The columns shown at ``width``.
        public var columns: TableColumns { TableColumns(width: width, locationWidth: locationWidth, timed: timed) }
        /// Where the selected row was when the rows were last built, for when it leaves.
        private(set) var selectedIndex = 0
        /// The user chose the selected pipeline (rather than it being the first shown),
        /// so its leaving is worth a notice.
        private(set) var chosen = false
        /// The widest location, for the LOCATION column (0: none).
        public private(set) var locationWidth = 0
        /// Whether a row has a TIME (TIME is shown only then).
        public private(set) var timed = false
        private var names: [NodeID: (stages: Int, name: PipelineName)] = [:]
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
        }

        /// The selected row's position in `rows`.
        public var currentIndex: Int? { selected.flatMap { index(of: $0) } }

        /// The row of pipeline `root`, if it has one (where it was last, else a scan:
        /// cheaper than keeping a map of 10,000 rows up to date on every sort).
        public func index(of root: NodeID) -> Int? {
            if selectedIndex < rows.count, rows[selectedIndex].id == root { return selectedIndex }
            return rows.position(of: root)
        }

        /// Rebuilds the rows if an input changed. Returns the pipeline the user had
        /// selected that has left, with the one selected in its place, so the reducer can
        /// say so. (Before the user chooses, the first pipeline shown is selected, and
        /// its leaving is not news.)
        mutating func refresh(_ state: AppState) -> (gone: PipelineRow, now: PipelineRow?)? {
            let now = state.timelineEnd
            let inputs = Inputs(graph: state.cursor.graphVersion, activity: activity.version,
                                lints: state.warnings.version, second: now / 1_000_000_000, hideEnded: state.tree.hideEnded)
            let rebuild = inputs != builtFrom
            guard rebuild || isUnsorted else { return nil }
            isUnsorted = false
            builtFrom = inputs
            let previous = selected.flatMap { index(of: $0) }.map { rows[$0] }
            let unsorted = rebuild
                ? build(state.cursor.graph, lints: state.warnings.lints, waits: state.warnings.waits, now: now,
                        hideEnded: state.tree.hideEnded)
                : rows.built
            rows = SortedRows(built: unsorted, positions: unsorted.sortedPositions(by: sort, descending: descending))
            if let selected, let at = rows.position(of: selected) {
                selectedIndex = at
                return nil
            }
            guard !rows.isEmpty else {
                selected = nil
                return chosen ? previous.map { ($0, nil) } : nil
            }
            let replacement = rows[min(selectedIndex, rows.count - 1)]
            selected = replacement.id
            selectedIndex = min(selectedIndex, rows.count - 1)
            return chosen ? previous.map { ($0, replacement) } : nil
        }

        /// The rows a fresh table shows for `graph`, built as ``refresh(_:)`` builds them and
        /// in its default order (RATE descending, ties by id): `snapshot --json`'s
        /// pipelines. Without event counts every rate is 0, and LAST is the newest time
        /// the graph itself knows (a value, an end, a request, the making of a stage).
        static func rows(of graph: Graph, lints: [Lint], waits: Waits = Waits()) -> [PipelineRow] {
            var table = Table()
            // No activity: there is no rate to read at any time.
            return table.build(graph, lints: lints, waits: waits, now: 0, hideEnded: false)
                .sorted(by: table.sort, descending: table.descending)
        }

        private mutating func build(_ graph: Graph, lints: [Lint], waits: Waits, now: Int64,
                                    hideEnded: Bool) -> [PipelineRow] {
            var warningsAt: [NodeID: Int] = [:]
            for lint in lints { warningsAt[lint.node, default: 0] += 1 }
            var rows: [PipelineRow] = []
            rows.reserveCapacity(graph.roots.count)
            var stack: [NodeID] = []
            var widest = 0
            for id in graph.roots {
                guard let root = graph[id] else { continue }
                if hideEnded, graph.isEnded(id) { continue }
                var stages = 0
                var warnings = 0
                var slowest: SlowStage?
                var last = max(activity.lastEventNanos(of: id), root.createdNanos)
                stack.append(id)
                while let current = stack.popLast() {
                    guard let node = graph[current] else { continue }
                    stages += 1
                    if !warningsAt.isEmpty { warnings += warningsAt[current] ?? 0 }
                    if node.times != nil { slowest = SlowStage.slower(slowest, SlowStage.of(node)) }
                    last = max(last, node.lastValueNanos ?? 0, node.endedNanos ?? 0, node.createdNanos,
                               node.recentRequests.last?.time ?? 0)
                    stack.append(contentsOf: node.children)
                }
                let name: PipelineName
                if let cached = names[id], cached.stages == stages {
                    name = cached.name
                } else {
                    name = PipelineName(root: id, in: graph)
                    names[id] = (stages, name)
                }
                let location = graph.location(of: id)?.location.short ?? ""
                if !location.isEmpty { widest = Swift.max(widest, location.count) }
                let wait = waits.pipeline(id)
                rows.append(PipelineRow(
                    id: id, name: name, location: location, status: root.status,
                    stages: stages, rate: activity.rate(of: id, at: now), values: root.values,
                    createdNanos: root.createdNanos, lastEventNanos: last, warnings: warnings, wait: wait,
                    waitHolder: wait.flatMap { graph[$0.at]?.operatorName } ?? "", waitNanos: wait?.nanos(at: waits.now),
                    slowest: slowest))
            }
            locationWidth = widest
            timed = rows.contains { $0.slowest != nil }
            // Numbered once here, so sorting by them (on every `<` `>` `i`) compares numbers.
            let nameOrders = TextOrder.numbers(rows.map(\.name.sortKey))
            let locationOrders = TextOrder.numbers(rows.map(\.location))
            for i in rows.indices {
                rows[i].nameOrder = nameOrders[i]
                rows[i].locationOrder = locationOrders[i]
            }
            // Forget the names of pipelines gone, once they are many.
            if names.count > 2 * rows.count + 64 {
                let kept = Set(rows.map(\.id))
                names = names.filter { kept.contains($0.key) }
            }
            return rows
        }

        /// The sortable column `step` places from the sorted one (wrapping), among those
        /// shown: `>` never sorts by a column the terminal is too narrow for.
        func sortColumn(_ step: Int) -> TableColumn { columns.sortColumn(from: sort, step: step) }

        /// Selects the row at `position` (clamped).
        mutating func select(row position: Int) {
            guard !rows.isEmpty else { return }
            let at = min(max(position, 0), rows.count - 1)
            selected = rows[at].id
            selectedIndex = at
            chosen = true
        }

        /// Selects pipeline `root` if it has a row.
        mutating func select(pipeline root: NodeID) {
            guard let at = index(of: root) else { return }
            selected = root
            selectedIndex = at
            chosen = true
        }

        /// Scrolls only as far as needed to keep the selected row visible.
        mutating func keepSelectionOnScreen() {
            offset = scrollOffset(keeping: currentIndex ?? 0, from: offset, page: pageSize, count: rows.count)
        }
    }
}
