import PipescopeGraph

/// What a row of the pipelines table is to the selection: one pipeline (its root), or the
/// folded row of the pipelines from one place (the number of that place and name,
/// ``PipelineRow/place``), which stays the same row while its members come and go.
public enum TableRowID: Hashable, Sendable {
    case pipeline(NodeID)
    case place(Int)
}

/// What a folded row stands for: the pipelines from one place, at least
/// ``PlaceFolds/minimum`` of them.
public struct PlaceFold: Hashable, Sendable {
    /// How many pipelines it folds: the `×215` in its ID column.
    public var count: Int
    /// The pipelines (roots), in the graph's order.
    public var members: [NodeID]
}

/// Pipelines from one place folded into one row, as the tree folds ended siblings alike
/// into a group (``StageGroup``): a screen that keeps every subscription it makes fills
/// the table with hundreds of rows alike just when the `pile-up` lint fires, and one row
/// `×215` says what those hundreds say.
///
/// **One place.** Pipelines fold when their roots were subscribed at the same location
/// (``PlaceTally/place(of:in:)``: the place the `pile-up` lint counts) *and* they have the
/// same name (``PipelineName``: the same chain, or the same `pipescopeName`). The name keeps
/// apart pipelines of different shapes that one helper subscribes; pipelines of one place
/// all have one name in the usual case, and then a folded row counts what the lint counts
/// (plus the ended ones, while ended pipelines are shown). A pipeline with no location never
/// folds: a name alone does not say it was made at one place.
///
/// **At least two** (``minimum``): as in the tree, whose groups start at two. Two rows alike
/// take two lines; one row `×2` takes one and says they are alike, which is the news when
/// a place starts to pile up; `→` shows them.
///
/// **The folded row's columns** sum RATE, VALUES, ⚠ (warnings) and STAGES over its
/// members; AGE is the oldest member's, LAST the newest event of any; STATUS is the worst
/// member's (failed, then subscribing, active, cancelled, finished: the one that needs a
/// look first); WAIT is the longest wait of a member, with that member's holder; TIME is
/// the costliest member's. Its ID column shows the count (`×215`) instead of an id, and its
/// ``PipelineRow/id`` is the member the `pile-up` lint is on (the oldest live one, the lowest
/// id of those made at once; the oldest when none is live): the pipeline Enter, `t` and `e`
/// act on, and the id ties are broken by.
///
/// ```swift
/// let built = PlaceFolds.fold(rows)        // rows, members marked, one folded row per place appended
/// let order = PlaceFolds.positions(built, by: .rate, descending: true, open: [3])
/// ```
enum PlaceFolds {
    /// The fewest pipelines from one place that fold into one row.
    static let minimum = 2

    /// `rows` (one per pipeline, built by ``PipelineRows``) with the members of each place
    /// that has at least ``minimum`` marked (``PipelineRow/isMember``), and one folded row
    /// for each such place appended after them. Linear in the rows; rows without a place
    /// cost a check each.
    static func fold(_ rows: [PipelineRow]) -> [PipelineRow] {
        var byPlace: [Int: [Int]] = [:]
        for i in rows.indices {
            if let place = rows[i].place { byPlace[place, default: []].append(i) }
        }
        var out = rows
        let folds = byPlace.filter { $0.value.count >= minimum }
        guard !folds.isEmpty else { return out }
        for (place, members) in folds.sorted(by: { $0.key < $1.key }) {
            for i in members { out[i].isMember = true }
            out.append(folded(members, of: rows, place: place))
        }
        return out
    }

    /// The folded row of the rows at `members` (in the graph's order) in `rows`, read in
    /// place (a copy of each member would retain and release its strings: at 10,000
    /// pipelines from 100 places, most of a fold).
    static func folded(_ members: [Int], of rows: [PipelineRow], place: Int) -> PipelineRow {
        var row = rows[members[0]]
        var rate = 0.0, values = 0, warnings = 0, stages = 0
        var created = Int64.max, last: Int64 = 0
        var status = row.status
        var wait: Int?
        var slowest: SlowStage?
        var oldest: (id: NodeID, created: Int64)?
        var oldestLive: (id: NodeID, created: Int64)?
        rows.withUnsafeBufferPointer { r in
            for i in members {
                rate += r[i].rate
                values &+= r[i].values
                warnings += r[i].warnings
                stages += r[i].stages
                created = min(created, r[i].createdNanos)
                last = max(last, r[i].lastEventNanos)
                if severity(r[i].status) < severity(status) { status = r[i].status }
                if let w = r[i].wait, wait.flatMap({ r[$0].wait }).map({ w.sinceNanos < $0.sinceNanos }) ?? true { wait = i }
                // The first of the costliest, as SlowStage.slower keeps it.
                if let p50 = r[i].slowest?.p50, p50 > slowest?.p50 ?? .min { slowest = r[i].slowest }
                let age = (id: r[i].id, created: r[i].createdNanos)
                if oldest.map({ (age.created, age.id) < ($0.created, $0.id) }) ?? true { oldest = age }
                if !r[i].status.isTerminal, oldestLive.map({ (age.created, age.id) < ($0.created, $0.id) }) ?? true {
                    oldestLive = age
                }
            }
        }
        row.id = oldestLive?.id ?? oldest?.id ?? row.id
        row.rate = rate
        row.values = values
        row.warnings = warnings
        row.stages = stages
        row.createdNanos = created
        row.lastEventNanos = last
        row.status = status
        row.wait = wait.flatMap { rows[$0].wait }
        row.waitHolder = wait.map { rows[$0].waitHolder } ?? ""
        row.waitNanos = wait.flatMap { rows[$0].waitNanos }
        row.slowest = slowest
        row.isMember = false
        row.fold = PlaceFold(count: members.count, members: members.map { rows[$0].id })
        return row
    }

    /// Which status a folded row shows: the smallest of its members'. A failure first, then
    /// a pipeline that never got its subscription, then live ones, then the ways of ending
    /// that are no news (cancelled, finished).
    static func severity(_ status: NodeStatus) -> Int {
        switch status {
        case .failed: return 0
        case .subscribing: return 1
        case .active: return 2
        case .cancelled: return 3
        case .finished: return 4
        }
    }

    /// The rows on screen, as positions in `rows` (``fold(_:)``'s output), in order of
    /// `column`: the rows that are no member (pipelines alone and folded rows) sorted by
    /// their keys, ties by ascending id; under each folded row whose place is in `open`, its
    /// members, sorted the same way and marked by the view. Members of closed folded rows
    /// are not on screen. Every key is an integer computed once (``TableColumn/keys(_:)``).
    static func positions(_ rows: [PipelineRow], by column: TableColumn, descending: Bool, open: Set<Int>) -> [Int] {
        let keys = column.keys(rows)
        let ids = rows.map(\.id)
        var top: [Int] = []
        var members: [Int: [Int]] = [:]
        if rows.last?.fold == nil {
            // Nothing folded (folded rows come last): every row is on screen, as before
            // folding, with no pass over the rows to tell members apart.
            top = Array(rows.indices)
        } else {
            top.reserveCapacity(rows.count)
            for i in rows.indices {
                if rows[i].isMember {
                    if let place = rows[i].place, open.contains(place) { members[place, default: []].append(i) }
                } else {
                    top.append(i)
                }
            }
        }
        func sort(_ order: inout [Int]) {
            keys.withUnsafeBufferPointer { k in
                ids.withUnsafeBufferPointer { id in
                    order.sort { a, b in
                        if k[a] != k[b] { return TableColumn.precedes(k[a], k[b], descending: descending) }
                        return id[a] < id[b]
                    }
                }
            }
        }
        sort(&top)
        guard !members.isEmpty else { return top }
        var out: [Int] = []
        out.reserveCapacity(top.count + members.values.reduce(0) { $0 + $1.count })
        for i in top {
            out.append(i)
            if rows[i].fold != nil, let place = rows[i].place, var under = members[place] {
                sort(&under)
                out += under
            }
        }
        return out
    }
}
