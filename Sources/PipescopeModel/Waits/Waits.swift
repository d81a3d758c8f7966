import PipescopeGraph

/// Where every active stage and pipeline of a graph waits, at one moment: the verdicts
/// the WAIT column, the tree's `‖` mark, the detail pane, the `stalled` lint, `snapshot
/// --json`'s `wait` and `pipescope explain` all read.
///
/// **The rule.** A stage that has ended has no wait. Otherwise, with `threshold` the time
/// without progress that makes a wait (`--stall-after`, 2 s by default):
/// - still ``NodeStatus/subscribing`` for longer than the threshold since it was made:
///   it waits for a **subscription**;
/// - active, and its subscriber has no outstanding demand (nothing requested, or as many
///   values delivered as requested), with no value and no request for longer than the
///   threshold: it waits for **demand**, held by its subscriber: `at` is its parent (whose
///   operator is that subscriber), or the root itself when the subscriber is the sink;
///   ``Wait/lastRequest`` is the newest demand the subscriber added;
/// - active with demand outstanding, and nothing delivered for longer than the threshold
///   since the last progress: it waits for **upstream**. Progress is the newest of the
///   last value and the first request made after it (the request that may have opened
///   the demand; before any value, the first request kept), or the stage's making when
///   no request is known; or, when newer, the making of a live stage upstream of it (a
///   `flatMap` whose inner `Future` was made a second ago is working, not stuck), or a
///   value that reached an operator upstream of it (or itself) that drops or holds back
///   what it gets by design (``dropping``: a `filter` dropping values meant for another
///   screen, a `debounce`, a `reduce` before its upstream finishes, also when an
///   `AnyPublisher` hides it): filtered is flowing, not stalled. Values a combiner (`zip`) got from one side are no progress: it waits
///   on the other, and only an input that sent it the fewest values passes its holder on.
///
/// A wait for upstream or for a subscription is attributed to the stage furthest
/// upstream that holds it: the first active child (in subscription order) that itself
/// waits for upstream or for a subscription passes on its own attribution (one whose
/// holder is not a subject, the program's own input, before one whose holder is); otherwise
/// (no children, all ended, a child that flows while this stage delivers nothing, or a
/// child held on demand because this operator does not ask its upstream) the stage
/// holds it itself. A pipeline's verdict is its root's.
///
/// Cost: one post-order walk per pipeline, each stage visited once, and a dictionary
/// entry only per waiting stage; no stage is looked at twice.
///
/// ```swift
/// let waits = Waits(graph, now: now, after: 2)
/// waits.pipeline(root)?.reason    // .upstream
/// waits[stage]?.at                // the Future that never answered
/// waits.holders.contains(future)  // true: the tree marks it
/// ```
public struct Waits: Sendable, Equatable {
    /// Each waiting stage's verdict, attributed as above.
    public private(set) var stages: [NodeID: Wait] = [:]
    /// Each waiting pipeline's verdict, by its root.
    public private(set) var pipelines: [NodeID: Wait] = [:]
    /// The stages that hold a pipeline's wait (the `at` of ``pipelines``).
    public private(set) var holders: Set<NodeID> = []
    /// The moment the verdicts are for.
    public private(set) var now: Int64 = 0

    public init() {}

    /// The verdicts on `graph` at `now`, a wait being more than `threshold` seconds
    /// without progress.
    public init(_ graph: Graph, now: Int64, after threshold: Double) {
        self.now = now
        let limit = Int64(threshold * 1e9)
        var walk = Walk()
        for root in graph.roots { _ = add(pipeline: root, of: graph, limit: limit, walk: &walk) }
    }

    /// The verdicts on pipeline `root` alone at `now`, and the earliest time after `now`
    /// at which they may change with no event (a stage that flows now starting to wait):
    /// what the inspector's tick recomputes for the pipelines that changed or fell due.
    static func pipeline(_ root: NodeID, of graph: Graph, now: Int64, after threshold: Double)
        -> (waits: Waits, due: Int64) {
        var waits = Waits()
        waits.now = now
        var walk = Walk()
        let due = waits.add(pipeline: root, of: graph, limit: Int64(threshold * 1e9), walk: &walk)
        return (waits, due)
    }

    /// Replaces pipeline `root`'s verdicts (`old`, as ``pipeline(_:of:now:after:)`` made
    /// them) with `new`'s, and dates the whole at `now`.
    mutating func replace(_ old: Waits?, with new: Waits?, now: Int64) {
        self.now = now
        if let old {
            for id in old.stages.keys { stages[id] = nil }
            for (root, verdict) in old.pipelines {
                pipelines[root] = nil
                holders.remove(verdict.at)
            }
        }
        if let new {
            stages.merge(new.stages) { _, fresh in fresh }
            pipelines.merge(new.pipelines) { _, fresh in fresh }
            holders.formUnion(new.holders)
        }
    }

    /// The walk's scratch space, kept from one pipeline to the next.
    struct Walk {
        var stack: [(id: NodeID, expanded: Bool)] = []
        /// When each walked stage or one upstream of it that is still live was made, for
        /// the current pipeline.
        var latest: [NodeID: Int64] = [:]
    }

    /// Adds pipeline `root`'s verdicts; returns when they may next change with no event
    /// (`.max`: never).
    private mutating func add(pipeline root: NodeID, of graph: Graph, limit: Int64, walk: inout Walk) -> Int64 {
        var due = Int64.max
        walk.latest.removeAll(keepingCapacity: true)
        walk.stack.append((root, false))
        while let (id, expanded) = walk.stack.popLast() {
            guard let node = graph[id] else { continue }
            if !expanded {
                walk.stack.append((id, true))
                // Children are finished before their parent: pushed in reverse, the
                // first to subscribe is walked first.
                for child in node.children.reversed() { walk.stack.append((child, false)) }
                continue
            }
            var upstream = Int64.min
            for child in node.children { if let t = walk.latest[child] { upstream = max(upstream, t) } }
            if Self.drops(node, in: graph) {
                // What its upstream delivered to it: it got values and kept them back (and
                // the demand it gave back for each: the same moment of its work).
                for child in node.children {
                    guard let input = graph[child], let t = input.lastValueNanos else { continue }
                    upstream = max(upstream, t, Self.opened(input) ?? t)
                }
            }
            walk.latest[id] = max(upstream, Self.lastActivity(node))
            guard var onset = Self.onset(node, upstreamActivity: upstream) else { continue }
            // Time the program was paused by an inspector is no wait of its own.
            onset.pauses = graph.pauses
            let held = graph.pauses.overlap(from: onset.sinceNanos, to: now)
            guard now - onset.sinceNanos - held > limit else {
                // Flows now; waits from just after `since + limit` (and the pauses so far)
                // unless an event comes.
                let (sum, overflow) = onset.sinceNanos.addingReportingOverflow(limit &+ 1 &+ held)
                due = min(due, overflow ? .max : sum)
                continue
            }
            var wait = onset
            if wait.reason != .demand {
                // The first waiting child passes its holder on; one whose holder is not
                // a subject waiting for the program's input goes first (a flatMap's
                // silent Future, not its idle trigger).
                let waiting = Self.inputs(of: node, in: graph).compactMap { stages[$0] }.filter { $0.reason != .demand }
                if let held = waiting.first(where: { !Self.isProgramInput($0.at, in: graph) }) ?? waiting.first {
                    wait.at = held.at
                }
            }
            stages[id] = wait
        }
        if let verdict = stages[root] {
            pipelines[root] = verdict
            holders.insert(verdict.at)
        }
        return due
    }

    /// The children that may hold the stage's wait, in subscription order: all of them,
    /// but for a combiner (`zip`) only the inputs that sent it the fewest values
    /// (``CombinerWait``): it waits on the input that is behind, not on one that sent
    /// and went quiet.
    static func inputs(of node: NodeSummary, in graph: Graph) -> [NodeID] {
        guard CombinerWait.operators.contains(node.operatorName), node.children.count > 1 else { return node.children }
        let values = node.children.map { graph[$0]?.values ?? 0 }
        let fewest = values.min() ?? 0
        return node.children.indices.filter { values[$0] == fewest }.map { node.children[$0] }
    }

    /// The verdict on stage `id`; nil while it flows or once it ended.
    public subscript(id: NodeID) -> Wait? { stages[id] }

    /// The verdict on the pipeline whose root is `root`.
    public func pipeline(_ root: NodeID) -> Wait? { pipelines[root] }

    /// Whether stage `node` drops or holds back values by design: its operator does, or it
    /// erases one that does (an `AnyPublisher` of `subject.compactMap { … }`, which the
    /// tap sees as the `AnyPublisher` with the subject under it, subscribed by the
    /// `CompactMap` the erasure hides).
    static func drops(_ node: NodeSummary, in graph: Graph) -> Bool {
        dropping.contains(node.operatorName)
            || node.children.contains { graph[$0].map { dropping.contains($0.subscriber) } ?? false }
    }

    /// Operators that drop or hold back what they receive by design, so that values
    /// reaching them with none sent on are their work, not a wait: filters, de-duplication,
    /// rate limits, and the operators that send only once their upstream finishes.
    public static let dropping: Set<String> = [
        "Filter", "TryFilter", "CompactMap", "TryCompactMap", "RemoveDuplicates", "TryRemoveDuplicates",
        "IgnoreOutput", "Debounce", "Throttle", "Drop", "DropWhile", "TryDropWhile", "DropUntilOutput",
        "CollectByCount", "CollectByTime", "Collect", "Reduce", "TryReduce", "Count", "Last", "LastWhere",
        "TryLastWhere", "Min", "Max", "TryMin", "TryMax", "Contains", "ContainsWhere", "TryContainsWhere",
        "AllSatisfy", "TryAllSatisfy", "Output",
    ]

    /// Whether stage `id` is a subject (or `@Published`), or an `AnyPublisher` erasing one
    /// (``NodeSummary/subjectSource``: the erased subject is no stage of its own): the
    /// program's own input, idle while nobody sends to it. (By name too, for recordings
    /// made before the tap said so.)
    static func isProgramInput(_ id: NodeID, in graph: Graph) -> Bool {
        guard let node = graph[id] else { return false }
        if node.subjectSource { return true }
        let name = node.operatorName
        return name.hasSuffix("Subject") || name.hasPrefix("Published")
    }

    /// When a live stage was made (work started upstream, in flight); nothing for an
    /// ended one.
    static func lastActivity(_ n: NodeSummary) -> Int64 {
        n.status.isTerminal ? .min : n.createdNanos
    }

    /// The stage's own wait, attributed to itself (or, on demand, to its subscriber);
    /// the walk then passes attribution upstream. `upstreamActivity`: when the newest live
    /// stage upstream of it was made (an upstream wait counts from it when it is newer).
    static func ownWait(_ n: NodeSummary, now: Int64, limit: Int64, upstreamActivity: Int64 = .min,
                        pauses: PauseLog = PauseLog()) -> Wait? {
        guard var wait = onset(n, upstreamActivity: upstreamActivity) else { return nil }
        wait.pauses = pauses
        return wait.nanos(at: now) > limit ? wait : nil
    }

    /// The wait the stage would have were its threshold passed: its reason, holder and
    /// since (nil: it has ended, or cannot wait). ``ownWait(_:now:limit:upstreamActivity:)``
    /// is this once more than `limit` has passed since.
    /// The request that may have opened stage `n`'s demand: the first after its last value
    /// (before any value, the first kept); nil when none is known.
    static func opened(_ n: NodeSummary) -> Int64? {
        guard let last = n.lastValueNanos else { return n.recentRequests.first?.time }
        return n.recentRequests.first { $0.time > last }?.time
    }

    static func onset(_ n: NodeSummary, upstreamActivity: Int64 = .min) -> Wait? {
        // A task shown as a stage (`CancellableBag.watch`, `eraseToAnyCancellable`): it
        // runs, and has no subscription or demand to wait on.
        if n.subscriber == "Task", n.publisherType.hasPrefix("Task<") { return nil }
        switch n.status {
        case .finished, .failed, .cancelled:
            return nil
        case .subscribing:
            return Wait(reason: .subscription, at: n.id, sinceNanos: n.createdNanos)
        case .active:
            if n.outstanding == .none {
                let since = max(n.createdNanos, n.lastValueNanos ?? n.createdNanos, n.recentRequests.last?.time ?? n.createdNanos)
                return Wait(reason: .demand, at: n.parent ?? n.id, sinceNanos: since,
                            lastRequest: n.recentRequests.last?.demand)
            }
            let since = max(n.lastValueNanos ?? n.createdNanos, opened(n) ?? n.createdNanos, upstreamActivity)
            return Wait(reason: .upstream, at: n.id, sinceNanos: since)
        }
    }
}
