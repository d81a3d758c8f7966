import PipescopeGraph

/// The judging half of a ``FindingCollector``: what was raised, when, where, and what the
/// next judgement is due, for a graph it does not own. The collector folds a run into a
/// graph of its own; a live program's metrics judge the probe's graph itself (no second
/// graph, no second fold), around each of the probe's folds.
///
/// The graph must record its changes (``Graph/recordChanges()``) from the first judgement
/// on: each judgement takes them, and judges only what they touched (all of it after
/// ``reload()``).
///
/// ```swift
/// var judge = FindingJudge(linter: Linter())
/// graph.recordChanges()
/// judge.willFold(batch, graph: &graph)   // the moments due before the batch, on the graph before it
/// graph.fold(batch)
/// judge.didFold(batch, graph: &graph)    // the batch's end
/// judge.findings
/// ```
package struct FindingJudge: Sendable {
    /// The lints that run, with their thresholds.
    package let linter: Linter
    /// The last moment judged.
    package private(set) var clock: Int64 = .min
    /// The most due times judged in one gap between batches (see
    /// ``FindingCollector/dueJudgementsPerGap``).
    package let dueJudgementsPerGap: Int

    /// A lint raised on a stage, once.
    private struct Raised: Sendable {
        var lint: Lint
        var raisedNanos: Int64
        var key: LintGroup.Key
        var at: SourceLocation?
        /// Its stage and its pipeline's root as last seen: what a place learnt after
        /// they were pruned is set on them.
        var stage: NodeSummary?
        var root: NodeSummary?
        /// Raised by a rule that reads locations (``LintRule/readsLocations``) on a stage
        /// not yet located: held back until its location comes, then kept only if the
        /// lint still holds (a dictionary entry replaced, which only the place tells).
        var unconfirmed = false
        /// Withdrawn: once located, it no longer held. No finding.
        var withdrawn = false
    }

    private struct LintID: Hashable, Sendable {
        var kind: LintKind
        var node: NodeID
    }

    private var warnings = AppState.Warnings()
    private var raised: [Raised] = []
    private var index: [LintID: Int] = [:]
    /// The raised lints whose stage is still in the graph (their place may yet be learnt), by stage.
    private var open: [NodeID: [Int]] = [:]
    /// The raised lints whose stage was pruned before its place was learnt, by the stage
    /// and by its root: a later batch's locations and codes still give it.
    private var late: [NodeID: Set<Int>] = [:]
    /// The version of the warnings last read: unchanged, they raised nothing new.
    private var seenVersion = -1
    /// The places a `pile-up` was raised at: judged no more for the past.
    private var piled: Set<SourceLocation> = []
    /// A snapshot replaced the graph: what changed is unknown, so everything is judged.
    private var reloaded = true
    /// How many of the moments a batch's newly placed roots were made are judged again
    /// for a pile-up (the newest; each judgement scans the place's pipelines).
    static let maxPastPileMoments = 8


    package init(linter: Linter, dueJudgementsPerGap: Int) {
        self.linter = linter
        self.dueJudgementsPerGap = max(1, dueJudgementsPerGap)
        warnings.linter = linter
    }

    /// The graph was replaced (a snapshot loaded): what changed is unknown, so the next
    /// judgement judges everything. What was raised before stays raised.
    package mutating func reload() {
        reloaded = true
    }

    /// Before `batch` is folded into `graph`: the moments the rules fall due before its
    /// first event, each judged on the graph as it stood then; and the places it brings
    /// for lints whose stages were pruned.
    package mutating func willFold(_ batch: EventBatch, graph: inout Graph) {
        if let start = batch.events.first?.time { catchUp(to: start, graph: &graph) }
        if !late.isEmpty { placeLate(batch) }
    }

    /// After `batch` was folded into `graph` (and before anything is pruned): the batch's
    /// end judged, and the pile-ups that stood before the places it brings were known.
    package mutating func didFold(_ batch: EventBatch, graph: inout Graph) {
        judge(now: max(clock, batch.events.last?.time ?? clock), graph: &graph)
        if !batch.locations.isEmpty { judgePilesBeforePlaces(batch, in: graph) }
    }

    /// Judges the moments due up to `now` and `now` itself.
    package mutating func finish(now: Int64, graph: inout Graph) {
        catchUp(to: now, graph: &graph)
        judge(now: max(clock, now), graph: &graph)
    }

    /// The findings so far, first raised first: each distinct one once, with a count.
    package var findings: [Finding] {
        var groups: [LintGroup.Key: Finding] = [:]
        var order: [LintGroup.Key] = []
        for r in raised where !r.withdrawn {
            if var found = groups[r.key] {
                found.count += 1
                if found.at == nil { found.at = r.at }
                groups[r.key] = found
            } else {
                order.append(r.key)
                groups[r.key] = Finding(kind: r.lint.kind, message: r.lint.message, node: r.lint.node, at: r.at,
                                        raisedNanos: r.raisedNanos)
            }
        }
        return order.compactMap { groups[$0] }
    }

    // MARK: - Judging

    /// Judges each time a rule falls due before `time`, in order, the graph as it is.
    private mutating func catchUp(to time: Int64, graph: inout Graph) {
        var judged = 0
        while judged < dueJudgementsPerGap {
            let due = warnings.nextDue
            guard due < time, due > clock else { return }
            judge(now: due, graph: &graph)
            judged += 1
        }
    }

    /// The lints at `now`: the new ones raised, the places of open ones brought up to date.
    private mutating func judge(now: Int64, graph: inout Graph) {
        let changes: GraphChanges? = reloaded ? nil : graph.takeChanges()
        if reloaded { _ = graph.takeChanges() }
        reloaded = false
        warnings.refresh(graph, now: now, changes: changes)
        clock = now
        place(changes, in: graph)
        guard warnings.version != seenVersion else { return }
        seenVersion = warnings.version
        for lint in warnings.lints { raise(lint, at: now, in: graph) }
        confirm(in: graph)
    }

    /// Keeps `lint`, raised at `now`, unless it was raised before.
    private mutating func raise(_ lint: Lint, at now: Int64, in graph: Graph) {
        let id = LintID(kind: lint.kind, node: lint.node)
        guard index[id] == nil else { return }
        index[id] = raised.count
        open[lint.node, default: []].append(raised.count)
        let unconfirmed = (LintRules.named(lint.kind.rawValue)?.readsLocations ?? false)
            && graph[lint.node]?.location == nil
        raised.append(Raised(lint: lint, raisedNanos: now, key: LintGroup.Key(parts: []), at: nil,
                             unconfirmed: unconfirmed))
        locate(raised.count - 1, in: graph)
        if lint.kind == .pileUp, let place = graph[lint.node]?.location { piled.insert(place) }
    }

    /// The pile-ups that stood before their pipelines' place was known. A place comes a
    /// batch or more after its pipelines (the symbol thread names it): in a live program
    /// within milliseconds of a minute's window, but in a test's block (a window of
    /// milliseconds) the pile may have stood and gone by then, and judging only from now
    /// on would miss it. So for each place `batch` gave roots, not yet piled, the moments
    /// those roots were made (the newest few: where a pile grows) are judged again by the
    /// same rule, from when each pipeline there was made and ended. A moment within a
    /// hundredth of the window of now is not: judging now says the same (a live
    /// program's places come milliseconds after a minute's window opens), and each
    /// judgement scans the place's pipelines.
    private mutating func judgePilesBeforePlaces(_ batch: EventBatch, in graph: Graph) {
        guard !linter.allowed.contains(.pileUp) else { return }
        let recent = PlaceTally.nanos(linter.pileUpAfter) / 100
        var made: [SourceLocation: Set<Int64>] = [:]
        for located in batch.locations {
            guard let root = graph[located.node], root.parent == nil, root.location == located.location,
                  !piled.contains(located.location) else { continue }
            made[located.location, default: []].insert(root.createdNanos)
        }
        for (place, times) in made {
            for time in times.sorted(by: >).prefix(Self.maxPastPileMoments) where clock - time > recent {
                guard let (holder, pile) = warnings.places.pileUp(at: place, asOf: time, linter: linter),
                      let root = graph[holder] else { continue }
                raise(Lint(kind: .pileUp, node: holder, message: PileUpRule.message(root, made: place, pile: pile, linter: linter)),
                      at: time, in: graph)
                break
            }
        }
    }

    /// Settles the unconfirmed lints whose stage is now located: kept if still raised,
    /// withdrawn otherwise (raised again later, it is a new finding).
    private mutating func confirm(in graph: Graph) {
        let waiting = open.values.joined().filter { raised[$0].unconfirmed && !raised[$0].withdrawn }
        guard !waiting.isEmpty else { return }
        let current = Set(warnings.lints.map { LintID(kind: $0.kind, node: $0.node) })
        for i in waiting where graph[raised[i].lint.node]?.location != nil {
            let id = LintID(kind: raised[i].lint.kind, node: raised[i].lint.node)
            raised[i].unconfirmed = false
            guard !current.contains(id) else { continue }
            raised[i].withdrawn = true
            index[id] = nil
        }
    }

    /// Brings the place of each open raised lint in a pipeline that `changes` touched up
    /// to date (every open one when the changes are unknown); a stage gone from the graph
    /// keeps the place last known.
    private mutating func place(_ changes: GraphChanges?, in graph: Graph) {
        guard !open.isEmpty else { return }
        var stages: [NodeID]
        if let changes {
            // A stage's place is its own or one downstream's; its code's builder, its parent's.
            var roots = Set<NodeID>()
            for id in changes.touched { if let root = AppState.pipeline(of: id, in: graph) { roots.insert(root) } }
            stages = open.keys.filter { changes.removed.contains($0) || roots.contains(AppState.pipeline(of: $0, in: graph) ?? $0) }
            guard !stages.isEmpty else { return }
        } else {
            stages = Array(open.keys)
        }
        for stage in stages {
            guard graph[stage] != nil else {
                for i in open.removeValue(forKey: stage) ?? [] where raised[i].at == nil || raised[i].root?.location == nil {
                    late[raised[i].lint.node, default: []].insert(i)
                    if let root = raised[i].root?.id { late[root, default: []].insert(i) }
                }
                continue
            }
            for i in open[stage] ?? [] { locate(i, in: graph) }
        }
    }

    private mutating func locate(_ i: Int, in graph: Graph) {
        let lint = raised[i].lint
        let root = AppState.pipeline(of: lint.node, in: graph).flatMap { graph[$0] }
        raised[i].key = LintGroup.key(lint, stage: graph[lint.node], root: root)
        raised[i].at = graph.lineToChange(lint.node, ownCode: lint.pointsAtCode) ?? raised[i].at
        raised[i].stage = graph[lint.node]
        raised[i].root = root
    }

    /// Gives the raised lints whose stages were pruned the places `batch` learnt for
    /// them: a root's location (where it was subscribed), a stage's code.
    private mutating func placeLate(_ batch: EventBatch) {
        for l in batch.locations {
            for i in late[l.node] ?? [] {
                if raised[i].stage?.id == l.node { raised[i].stage?.location = l.location }
                if raised[i].root?.id == l.node { raised[i].root?.location = l.location }
                relocate(i)
            }
        }
        for c in batch.codes {
            for i in late[c.node] ?? [] where raised[i].stage?.id == c.node {
                raised[i].stage?.code = c.code
                raised[i].stage?.builtBy = c.builtBy
                relocate(i)
            }
        }
    }

    /// A pruned stage's place from what was last seen of it and its root, as
    /// ``Graph/lineToChange(_:ownCode:)`` gives it for one in the graph.
    private mutating func relocate(_ i: Int) {
        let r = raised[i]
        raised[i].key = LintGroup.key(r.lint, stage: r.stage, root: r.root)
        let own = r.lint.pointsAtCode ? (r.stage?.code ?? r.stage?.builtBy) : nil
        raised[i].at = own ?? r.stage?.location ?? r.root?.location ?? r.at
        guard raised[i].at != nil, r.root?.location != nil else { return }
        late[r.lint.node]?.remove(i)
        if let root = r.root?.id { late[root]?.remove(i) }
        if late[r.lint.node]?.isEmpty == true { late[r.lint.node] = nil }
        if let root = r.root?.id, late[root]?.isEmpty == true { late[root] = nil }
    }
}
