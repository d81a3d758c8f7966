import PipescopeGraph

/// Folds a run (a recording read message by message, or a live program's batches as they
/// come) into its ``Finding``s: every lint raised at any moment of the run, each distinct
/// one kept once, from the first time it was raised, even after its stage ended and was
/// pruned (a graph at the run's end holds only what is still retained, so its lints are
/// not the run's).
///
/// **When it judges.** At the end of each batch, with that batch's last event's time as
/// the clock; and before a batch, at each time a running rule said its verdict may change
/// with no event (``LintRule/due(_:in:)``, ``PipelineLints/due``) that falls before the
/// batch's first event: a pipeline that stalled for a minute and then moved on within
/// one gap between batches was stalled, and is found. Each moment is judged with its own
/// clock, never the run's end. The lints come from the inspector's own incremental
/// warnings (``AppState/Warnings``), so a check agrees with what a person would have seen.
///
/// **What is one finding.** A lint on a stage (its kind and stage id) counts once however
/// often it is raised. Lints that are the same mistake in the same place
/// (``LintGroup/key(_:stage:root:)``, the warnings list's rule) are one finding with a
/// count. Where a stage was made is learnt a batch or two after it: a raised lint's place
/// is brought up to date while its stage is in the graph.
///
/// ```swift
/// var collector = FindingCollector(linter: Linter(allowed: [.slowStage]))
/// collector.load(snapshot)
/// for batch in batches { collector.fold(batch) }
/// collector.finish(now: lastEventTime)
/// for finding in collector.findings { print(finding.line) }
/// ```
public struct FindingCollector: Sendable {
    /// The lints that run, with their thresholds.
    public let linter: Linter
    /// How long ended stages stay in the graph (nil: they stay for the whole run).
    public let retention: Retention?
    /// The run's graph as of the last batch folded (pruned with ``retention``).
    public private(set) var graph = Graph()
    /// The last moment judged.
    public private(set) var clock: Int64 = .min

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
    /// The most due times judged in one gap between batches by default: a rule whose due
    /// never moves on cannot hold the fold.
    public static let maxDueJudgementsPerGap = 1_000
    /// How many of the moments a batch's newly placed roots were made are judged again
    /// for a pile-up (the newest; each judgement scans the place's pipelines).
    static let maxPastPileMoments = 8
    /// The most due times judged in one gap between batches. Each judgement walks every
    /// live pipeline, so a live program's metrics, folding a batch every few milliseconds
    /// with 100,000 pipelines, judge one (the gaps are short; `check` and tests judge all).
    public let dueJudgementsPerGap: Int

    public init(linter: Linter = Linter(), retention: Retention? = .standard,
                dueJudgementsPerGap: Int = FindingCollector.maxDueJudgementsPerGap) {
        self.linter = linter
        self.retention = retention
        self.dueJudgementsPerGap = max(1, dueJudgementsPerGap)
        warnings.linter = linter
        graph.recordChanges()
    }

    /// Starts over from a snapshot (a recording's first message, or a program's graph
    /// on attach); what was raised before stays raised.
    public mutating func load(_ snapshot: GraphSnapshot) {
        graph.load(snapshot)
        graph.recordChanges()
        reloaded = true
    }

    /// Folds one batch of the run, judging the moments the rules fall due before it,
    /// then the batch's end.
    public mutating func fold(_ batch: EventBatch) {
        if let start = batch.events.first?.time { catchUp(to: start) }
        if !late.isEmpty { placeLate(batch) }
        graph.fold(batch)
        judge(now: max(clock, batch.events.last?.time ?? clock))
        if !batch.locations.isEmpty { judgePilesBeforePlaces(batch) }
        if let retention, clock > .min { graph.prune(now: clock, retention: retention) }
    }

    /// Judges the moments due up to `now` and `now` itself: the run's end (a recording's
    /// last event's time, or the end of a test's block).
    public mutating func finish(now: Int64) {
        catchUp(to: now)
        judge(now: max(clock, now))
    }

    /// The findings so far, first raised first: each distinct one once, with a count.
    public var findings: [Finding] {
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
    private mutating func catchUp(to time: Int64) {
        var judged = 0
        while judged < dueJudgementsPerGap {
            let due = warnings.nextDue
            guard due < time, due > clock else { return }
            judge(now: due)
            judged += 1
        }
    }

    /// The lints at `now`: the new ones raised, the places of open ones brought up to date.
    private mutating func judge(now: Int64) {
        let changes: GraphChanges? = reloaded ? nil : graph.takeChanges()
        if reloaded { _ = graph.takeChanges() }
        reloaded = false
        warnings.refresh(graph, now: now, changes: changes)
        clock = now
        place(changes)
        guard warnings.version != seenVersion else { return }
        seenVersion = warnings.version
        for lint in warnings.lints { raise(lint, at: now) }
        confirm()
    }

    /// Keeps `lint`, raised at `now`, unless it was raised before.
    private mutating func raise(_ lint: Lint, at now: Int64) {
        let id = LintID(kind: lint.kind, node: lint.node)
        guard index[id] == nil else { return }
        index[id] = raised.count
        open[lint.node, default: []].append(raised.count)
        let unconfirmed = (LintRules.named(lint.kind.rawValue)?.readsLocations ?? false)
            && graph[lint.node]?.location == nil
        raised.append(Raised(lint: lint, raisedNanos: now, key: LintGroup.Key(parts: []), at: nil,
                             unconfirmed: unconfirmed))
        locate(raised.count - 1)
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
    private mutating func judgePilesBeforePlaces(_ batch: EventBatch) {
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
                      at: time)
                break
            }
        }
    }

    /// Settles the unconfirmed lints whose stage is now located: kept if still raised,
    /// withdrawn otherwise (raised again later, it is a new finding).
    private mutating func confirm() {
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
    private mutating func place(_ changes: GraphChanges?) {
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
            for i in open[stage] ?? [] { locate(i) }
        }
    }

    private mutating func locate(_ i: Int) {
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
