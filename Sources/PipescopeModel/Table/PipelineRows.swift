import PipescopeGraph

/// The pipelines table's rows, kept by root from one refresh to the next, so a refresh
/// walks only the pipelines that changed.
///
/// A row has two kinds of fields:
/// - what a walk of the pipeline's stages gives (its name, stages, status, values,
///   warnings, slowest stage, the newest time its stages know, its wait and the wait's
///   holder): kept, and walked again only for the pipelines named changed (their stages
///   were touched, or their verdict or lints changed);
/// - what the clock and the event counts give (the rate, the last event, how long it has
///   waited): read again for every row on every refresh, a lookup each.
///
/// The text orders of names and locations (``TextOrder``) are numbered again only when
/// the rows or their names or locations changed.
///
/// ```swift
/// var rows = PipelineRows()
/// rows.rebuild(from: inputs)                      // every pipeline walked
/// rows.update(from: inputs, changed: [7, 12])     // pipelines 7 and 12 walked, the rest kept
/// ```
struct PipelineRows: Sendable {
    /// What rows are built from.
    struct Sources {
        var graph: Graph
        var lints: [Lint]
        /// Identifies `lints` (the warnings' version).
        var lintsVersion: Int
        var waits: Waits
        var activity: PipelineActivity
        var now: Int64
        var hideEnded: Bool
    }

    private struct Entry: Sendable {
        /// The row, its clock fields as of the last refresh.
        var row: PipelineRow
        /// The newest time its stages know (made, a value, an end, a request).
        var stagesLast: Int64
        /// Whether it and every stage upstream of it have ended.
        var ended: Bool
    }

    private var entries: [NodeID: Entry] = [:]
    private var warningsAt: [NodeID: Int] = [:]
    private var warningsVersion: Int?
    /// The rows' ids in built order, as last built.
    private var ids: [NodeID] = []
    /// The widest location, for the LOCATION column (0: none).
    private(set) var locationWidth = 0
    /// What pipelines fold by: the place the `pile-up` lint counts, and the name. Its hash
    /// is the row's ``PipelineRow/place``: derived from the pipeline alone (a full rebuild and
    /// an update give the same), and the same for the inspector's life (hashes are seeded
    /// once per process), so a folded row keeps its identity, its selection and whether it
    /// is open. Two places whose 64-bit hashes collide would share a row: at a thousand
    /// places, a chance of about 1 in 10^13.
    private struct PlaceKey: Hashable, Sendable {
        var place: SourceLocation
        var name: String
    }

    /// Every pipeline's row walked again.
    mutating func rebuild(from sources: Sources) -> [PipelineRow] {
        entries.removeAll(keepingCapacity: true)
        countWarnings(sources)
        for id in sources.graph.roots { walk(id, sources) }
        return assemble(sources, namesMayDiffer: true)
    }

    /// The rows with only the pipelines in `changed` (by root; stages that are not roots,
    /// or are gone, are skipped) walked again.
    mutating func update(from sources: Sources, changed: Set<NodeID>) -> [PipelineRow] {
        countWarnings(sources)
        var namesMayDiffer = false
        for id in changed {
            guard let node = sources.graph[id], node.parent == nil else {
                entries[id] = nil
                continue
            }
            let old = entries[id]?.row
            walk(id, sources)
            let new = entries[id]?.row
            if old?.name.sortKey != new?.name.sortKey || old?.location != new?.location {
                namesMayDiffer = true
            } else {
                // The same texts keep their places among the others'.
                entries[id]?.row.nameOrder = old?.nameOrder
                entries[id]?.row.locationOrder = old?.locationOrder
            }
        }
        return assemble(sources, namesMayDiffer: namesMayDiffer)
    }

    private mutating func countWarnings(_ sources: Sources) {
        guard warningsVersion != sources.lintsVersion else { return }
        warningsVersion = sources.lintsVersion
        warningsAt.removeAll(keepingCapacity: true)
        for lint in sources.lints { warningsAt[lint.node, default: 0] += 1 }
    }

    /// Walks pipeline `id` into its entry.
    private mutating func walk(_ id: NodeID, _ sources: Sources) {
        let graph = sources.graph
        guard let root = graph[id] else {
            entries[id] = nil
            return
        }
        var stages = 0
        var warnings = 0
        var slowest: SlowStage?
        var last = root.createdNanos
        var ended = true
        var stack = [id]
        while let current = stack.popLast() {
            guard let node = graph[current] else { continue }
            stages += 1
            if !warningsAt.isEmpty { warnings += warningsAt[current] ?? 0 }
            if node.times != nil { slowest = SlowStage.slower(slowest, SlowStage.of(node)) }
            last = max(last, node.lastValueNanos ?? 0, node.endedNanos ?? 0, node.createdNanos,
                       node.recentRequests.last?.time ?? 0)
            if !node.status.isTerminal { ended = false }
            stack.append(contentsOf: node.children)
        }
        // Named on every walk: only a changed pipeline is walked (a name kept while
        // the count of stages stayed could go stale when stages came and went).
        let name = PipelineName(root: id, in: graph)
        let wait = sources.waits.pipeline(id)
        var row = PipelineRow(
            id: id, name: name, location: graph.location(of: id)?.location.short ?? "", status: root.status,
            stages: stages, rate: 0, values: root.values, createdNanos: root.createdNanos, lastEventNanos: last,
            warnings: warnings, wait: wait, waitHolder: wait.flatMap { graph[$0.at]?.operatorName } ?? "",
            waitNanos: nil, slowest: slowest)
        if let place = PlaceTally.place(of: id, in: graph) { row.place = PlaceKey(place: place, name: name.text).hashValue }
        entries[id] = Entry(row: row, stagesLast: last, ended: ended)
    }

    /// The rows in the graph's root order, their clock fields read at `now`.
    private mutating func assemble(_ sources: Sources, namesMayDiffer: Bool) -> [PipelineRow] {
        var rows: [PipelineRow] = []
        rows.reserveCapacity(sources.graph.roots.count)
        let activity = sources.activity
        let waitsNow = sources.waits.now
        for id in sources.graph.roots {
            // One lookup, and one copy of the row: the rest is read in place.
            guard let index = entries.index(forKey: id) else { continue }
            if sources.hideEnded, entries.values[index].ended { continue }
            var row = entries.values[index].row
            row.rate = activity.rate(of: id, at: sources.now)
            row.lastEventNanos = max(activity.lastEventNanos(of: id), entries.values[index].stagesLast)
            row.waitNanos = row.wait?.nanos(at: waitsNow)
            rows.append(row)
        }
        let built = rows.map(\.id)
        if namesMayDiffer || built != ids {
            // Numbered once here, so sorting by them (on every `<` `>` `i`) compares numbers.
            let nameOrders = TextOrder.numbers(rows.map(\.name.sortKey))
            let locationOrders = TextOrder.numbers(rows.map(\.location))
            var widest = 0
            for i in rows.indices {
                rows[i].nameOrder = nameOrders[i]
                rows[i].locationOrder = locationOrders[i]
                entries[rows[i].id]?.row.nameOrder = nameOrders[i]
                entries[rows[i].id]?.row.locationOrder = locationOrders[i]
                if !rows[i].location.isEmpty { widest = max(widest, rows[i].location.count) }
            }
            locationWidth = widest
            ids = built
        }
        // Forget the pipelines gone, once they are many.
        if entries.count > 2 * sources.graph.roots.count + 64 {
            let kept = Set(sources.graph.roots)
            entries = entries.filter { kept.contains($0.key) }
        }
        return rows
    }
}
