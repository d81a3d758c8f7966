import PipescopeGraph

extension LintKind {
    public static let repeatedWork = LintKind("repeated-work")
}

/// One cold publisher subscribed again while an earlier subscription to it still ran, each
/// subscription running its own upstream work: two `map`s off one `Deferred { Future { … } }`
/// make two requests for every refresh.
///
/// Judged from the publisher's identity at subscribe (``NodeSummary/publisher``: the same
/// for copies of one `Deferred` or one `AnyPublisher`, and for one `Future` or subject):
/// the stage is a later subscription to a publisher that an earlier stage, still live when
/// this one subscribed, was subscribed to, and each of the two has a request of its own
/// upstream: a `Future` (which runs its closure when it is made, once) or a URL session's
/// data task, that the other does not share. So it is quiet for what is shared by design:
/// one `Future` (its result is shared), a subject, `share()` and `multicast` (one upstream
/// subscription; their branches subscribe the same stages), and a `Deferred` whose closure
/// returns a publisher made once. Stages subscribed by one operator (a `flatMap`'s inner
/// subscriptions, one per value) are its own design, not a second subscribe site, and are
/// left alone. On the later stage, naming the earlier.
enum RepeatedWorkRule: LintRule {
    static let kind = LintKind.repeatedWork
    static let summary = "one cold publisher subscribed twice at once, each subscription running its own request"
    static let advice = "Subscribe once, or `.share()` the publisher where it is made so that both read one subscription."

    /// Operators whose making or subscribing does the work a cold publisher repeats.
    static let work: Set<String> = ["Future", "DataTaskPublisher", "URLSession.DataTaskPublisher"]

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard n.publisher != 0, !n.subjectSource else { return [] }
        let graph = context.graph
        let earlier = graph.stages(subscribedTo: n.publisher)
        guard earlier.first != n.id else { return [] }
        let mine = requests(upstreamOf: n.id, in: graph)
        guard !mine.isEmpty else { return [] }
        for id in earlier {
            guard id < n.id, let other = graph[id] else { continue }
            if let parent = n.parent, parent == other.parent { continue }
            // Still live when this one subscribed: the two ran at once.
            guard other.createdNanos <= n.createdNanos, (other.endedNanos ?? .max) > n.createdNanos else { continue }
            let theirs = requests(upstreamOf: id, in: graph)
            guard !theirs.isEmpty, theirs.isDisjoint(with: mine) else { continue }
            return [message(n, other: other, work: mine.count == 1 ? workName(upstreamOf: n.id, in: graph) : nil,
                            in: graph)]
        }
        return []
    }

    private static func message(_ n: NodeSummary, other: NodeSummary, work: String?, in graph: Graph) -> String {
        func site(_ id: NodeID) -> String {
            graph.location(of: id).map { " (subscribed at \($0.location.short))" } ?? ""
        }
        let what = work.map { "its own \($0)" } ?? "its own requests"
        return "#\(n.id) \(n.operatorName)\(site(n.id)) subscribes the same \(n.operatorName) as "
            + "#\(other.id)\(site(other.id)), which still runs: each subscription runs \(what), "
            + "so the work is done twice. " + advice
    }

    /// The requests upstream of stage `id`: each work stage's publisher (its own id when
    /// it has none), so that two subscriptions sharing one `Future` share its entry.
    static func requests(upstreamOf id: NodeID, in graph: Graph) -> Set<UInt64> {
        var found: Set<UInt64> = []
        var stack = graph[id]?.children ?? []
        var seen: Set<NodeID> = []
        while let next = stack.popLast() {
            guard seen.insert(next).inserted, let node = graph[next] else { continue }
            if work.contains(node.operatorName) { found.insert(node.publisher != 0 ? node.publisher : node.id) }
            stack.append(contentsOf: node.children)
        }
        return found
    }

    /// The operator name of the one work stage upstream of `id`.
    private static func workName(upstreamOf id: NodeID, in graph: Graph) -> String? {
        var stack = graph[id]?.children ?? []
        while let next = stack.popLast() {
            guard let node = graph[next] else { continue }
            if work.contains(node.operatorName) { return node.operatorName }
            stack.append(contentsOf: node.children)
        }
        return nil
    }
}
