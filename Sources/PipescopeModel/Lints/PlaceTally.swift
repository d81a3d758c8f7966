import PipescopeGraph

/// The pipelines of each place: for every root that has a source location (where the
/// program subscribed it), whether it is live or when it ended, kept by that location.
/// What the `pile-up` lint judges (``PileUpRule``): the one lint that reads across
/// pipelines.
///
/// **Incremental.** The inspector's tick keeps one tally from tick to tick and hands it
/// each root its events touched (``update(root:in:)``) or that went
/// (``remove(root:)``); each answers the pipelines whose share of the lints must be
/// recomputed for it: the holders (``holder(at:)``) of the places the change moved, before
/// and after. So a tick costs a dictionary look-up per touched root, and a scan of a
/// place's pipelines only when that place changed. ``init(_:)`` counts a whole graph (a
/// snapshot, the cursor in history, `snapshot`, `explain`, export): the same tally.
///
/// ```swift
/// var places = PlaceTally(graph)
/// places.holder(at: here)                       // the oldest live pipeline made here
/// places.pileUp(at: here, now: now, linter: linter)?.live   // 215
/// ```
struct PlaceTally: Sendable, Equatable {
    /// One root's part: its place, when it was made and when it ended (nil: live).
    struct Entry: Sendable, Equatable {
        var place: SourceLocation
        var created: Int64
        var ended: Int64?
    }

    /// One place's pipelines.
    struct Place: Sendable, Equatable {
        /// The live ones, with when each was made.
        var live: [NodeID: Int64] = [:]
        /// The ended ones still in the graph, with when each ended.
        var ended: [NodeID: Int64] = [:]
        /// The oldest live one (the earliest made, the lowest id of those made at once):
        /// the pipeline the place's lint is on, kept so a tick need not look for it.
        var holder: (id: NodeID, created: Int64)?

        static func == (a: Place, b: Place) -> Bool {
            a.live == b.live && a.ended == b.ended && a.holder?.id == b.holder?.id
        }

        mutating func add(_ id: NodeID, _ entry: Entry) {
            if let end = entry.ended {
                ended[id] = end
                return
            }
            live[id] = entry.created
            if holder.map({ (entry.created, id) < ($0.created, $0.id) }) ?? true { holder = (id, entry.created) }
        }

        mutating func drop(_ id: NodeID) {
            ended[id] = nil
            guard live.removeValue(forKey: id) != nil, holder?.id == id else { return }
            holder = nil
            for (other, created) in live where holder.map({ (created, other) < ($0.created, $0.id) }) ?? true {
                holder = (other, created)
            }
        }
    }

    private(set) var entries: [NodeID: Entry] = [:]
    private(set) var places: [SourceLocation: Place] = [:]

    init() {}

    /// The tally of every pipeline of `graph`.
    init(_ graph: Graph) {
        for root in graph.roots { _ = update(root: root, in: graph) }
    }

    /// The place of pipeline `root`: where the program subscribed its root, as the tap
    /// recorded it. Nil when `root` is no pipeline (gone, or under another stage now) or
    /// has no location. The one notion of "place": the `pile-up` lint counts by it and
    /// the pipelines table folds by it (``PlaceFolds``), so the two agree.
    static func place(of root: NodeID, in graph: Graph) -> SourceLocation? {
        guard let node = graph[root], node.parent == nil else { return nil }
        return node.location
    }

    /// The entry `graph` gives `root`: nil when it has no place (``place(of:in:)``).
    private static func entry(of root: NodeID, in graph: Graph) -> Entry? {
        guard let place = place(of: root, in: graph), let node = graph[root] else { return nil }
        return Entry(place: place, created: node.createdNanos, ended: node.status.isTerminal ? node.endedNanos ?? node.createdNanos : nil)
    }

    /// Brings `root`'s part up to `graph`; returns the pipelines whose share of the lints
    /// this changes (the holders of the places it left or joined, before and after).
    mutating func update(root: NodeID, in graph: Graph) -> [NodeID] {
        let fresh = Self.entry(of: root, in: graph)
        let old = entries[root]
        if fresh == old { return [] }
        var holders: [NodeID] = []
        if let old { holders += move(root, from: old.place) { $0.drop(root) } }
        entries[root] = fresh
        if let fresh { holders += move(root, from: fresh.place) { $0.add(root, fresh) } }
        return holders
    }

    /// Forgets `root` (pruned, or adopted under another stage); returns what
    /// ``update(root:in:)`` returns.
    mutating func remove(root: NodeID) -> [NodeID] {
        guard let old = entries.removeValue(forKey: root) else { return [] }
        return move(root, from: old.place) { $0.drop(root) }
    }

    /// Changes one place, and says whose share that changes: its holder before and after.
    /// Changed in place (the dictionary's own storage): a copy taken out, changed and put
    /// back would copy the place's tables on every change, a whole place's pipelines per
    /// pipeline made there (most of the lints' time in a program subscribing thousands of
    /// pipelines at one line).
    private mutating func move(_ root: NodeID, from place: SourceLocation, _ change: (inout Place) -> Void) -> [NodeID] {
        let before = places[place]?.holder?.id
        change(&places[place, default: Place()])
        guard let p = places[place] else { return [] }
        let after = p.holder?.id
        if p.live.isEmpty && p.ended.isEmpty { places[place] = nil }
        return [before, after].compactMap { $0 }
    }

    /// The oldest live pipeline made at `place`: the one its `pile-up` lint is on.
    func holder(at place: SourceLocation) -> NodeID? { places[place]?.holder?.id }

    /// A place whose live pipelines keep growing in number, as of one moment.
    struct PileUp: Equatable {
        /// Live pipelines made there.
        var live: Int
        /// How many of them were made within ``Linter/pileUpAfter`` (none ended in it,
        /// so the count grew by that much).
        var grown: Int
    }

    /// Whether `place` piles up at `now`: at least ``Linter/pileUpCount`` live pipelines
    /// made there, made over more than ``Linter/pileUpAfter`` (from the oldest to the
    /// newest: a burst, a list's rows subscribing in one loop, is no pile however many),
    /// at least one made within that time before `now`, and none made there ended within
    /// it. Nil otherwise.
    func pileUp(at place: SourceLocation, now: Int64, linter: Linter) -> PileUp? {
        guard let p = places[place], p.live.count >= linter.pileUpCount, let oldest = p.holder?.created else { return nil }
        let window = Self.nanos(linter.pileUpAfter)
        guard !p.ended.values.contains(where: { now - $0 <= window }) else { return nil }
        var grown = 0
        var newest = Int64.min
        for created in p.live.values {
            if now - created <= window { grown += 1 }
            newest = max(newest, created)
        }
        return grown > 0 && newest &- oldest > window ? PileUp(live: p.live.count, grown: grown) : nil
    }

    /// Whether `place` piled up at the past moment `time`, by the same rule as
    /// ``pileUp(at:now:linter:)``, from when each of its pipelines still in the tally was
    /// made and ended; with the pipeline its lint was on then (the oldest live). For a
    /// place learnt after the moment passed (``FindingCollector``): the pile stood while
    /// the symbol thread had not yet named the place. Scans the place's pipelines.
    func pileUp(at place: SourceLocation, asOf time: Int64, linter: Linter) -> (holder: NodeID, pile: PileUp)? {
        guard let p = places[place], p.live.count + p.ended.count >= linter.pileUpCount else { return nil }
        let window = Self.nanos(linter.pileUpAfter)
        var live = 0
        var grown = 0
        var oldest: (created: Int64, id: NodeID)?
        var newest = Int64.min
        for id in Array(p.live.keys) + Array(p.ended.keys) {
            guard let entry = entries[id], entry.created <= time else { continue }
            if let end = entry.ended, end <= time {
                if time - end <= window { return nil }
                continue
            }
            live += 1
            if time - entry.created <= window { grown += 1 }
            newest = max(newest, entry.created)
            if oldest.map({ (entry.created, id) < ($0.created, $0.id) }) ?? true { oldest = (entry.created, id) }
        }
        guard live >= linter.pileUpCount, grown > 0, let oldest, newest &- oldest.created > window else { return nil }
        return (oldest.id, PileUp(live: live, grown: grown))
    }

    /// The earliest time after `now` at which ``pileUp(at:now:linter:)`` may answer
    /// otherwise with no event: when a pipeline's making or ending leaves the window
    /// (`.max` while too few are live for time alone to matter).
    func due(at place: SourceLocation, now: Int64, linter: Linter) -> Int64 {
        guard let p = places[place], p.live.count >= linter.pileUpCount else { return .max }
        let window = Self.nanos(linter.pileUpAfter)
        var due = Int64.max
        for time in p.live.values where now - time <= window { due = min(due, time &+ window &+ 1) }
        for time in p.ended.values where now - time <= window { due = min(due, time &+ window &+ 1) }
        return due
    }

    static func nanos(_ seconds: Double) -> Int64 {
        let n = seconds * 1e9
        return n >= Double(Int64.max) ? .max : Int64(max(0, n))
    }
}
