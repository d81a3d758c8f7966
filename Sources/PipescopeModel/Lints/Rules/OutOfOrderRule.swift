import PipescopeGraph

extension LintKind {
    public static let outOfOrder = LintKind("out-of-order")
}

/// A `flatMap` whose inner publishers answer out of order: the answer to an older upstream
/// value came after the answer to a newer one, so the older answer is what downstream
/// ends with (the search whose slow results for "s" land after the results for "shoe").
///
/// Judged from the fold's ``InnerAnswers`` (what counts as an input, an answer and a late
/// one is defined there): one lint on the flatMap once any answer came late. Quiet where
/// the order cannot matter, as far as the graph tells:
/// - the inputs are a collection's elements (`[a, b].publisher.flatMap { fetch($0) }`): a
///   fan-out, where no element is a newer version of another;
/// - downstream gathers every answer (`collect`, `reduce`, `scan`, `count`,
///   `ignoreOutputs`): none replaces another;
/// - an answer to an input sent inside the same delivery as the newer one (siblings of
///   one fan-out), and a stream the inner joined (a subject's values), are never late
///   (``InnerAnswers``).
///
/// Never for `flatMap(maxPublishers: .max(1))`, whose inners run one at a time, nor for
/// `map { … }.switchToLatest()`, which cancels the older inner before the newer starts:
/// neither can answer out of order, and neither is a merge the fold tracks.
enum OutOfOrderRule: LintRule {
    static let kind = LintKind.outOfOrder
    static let summary = "a flatMap whose inner publisher for an older value answered after the one for a newer value"
    static let advice = "If only the newest value's answer matters, write map { … }.switchToLatest() instead of "
        + "flatMap { … }: it cancels the older inner publisher. If every answer is needed, in order, use "
        + "flatMap(maxPublishers: .max(1)), with a buffer(size:prefetch:whenFull:) before it when the upstream is a "
        + "subject (a subject drops what it is sent while nobody asks)."

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard let answers = n.innerAnswers, answers.lateCount > 0, let late = answers.lastLate,
              !answers.fromCollection, !gathersDownstream(of: n, in: context.graph) else { return [] }
        let times = answers.lateCount == 1 ? "" : " (\(answers.lateCount) late answers so far)"
        let place = context.graph.location(of: n.id).map { " at \($0.location.short)" } ?? ""
        return ["answered out of order: the answer to \(name(late.stale)) came after the answer to "
            + "\(name(late.fresh)), a newer value\(times). flatMap\(place) passes on each inner publisher's values "
            + "as they come, so a slow answer to an older value lands last and replaces the newer one downstream. "
            + advice]
    }

    /// An upstream value as the message names it: its words, quoted, or its event number.
    static func name(_ input: InnerAnswers.Input) -> String {
        input.value.isEmpty ? "value #\(input.event)" : "\"\(input.value.text)\""
    }

    /// Whether a stage downstream of `n` keeps every value it gets (none replaces another),
    /// so the order answers arrive in does not decide what the pipeline ends with.
    static func gathersDownstream(of n: NodeSummary, in graph: Graph) -> Bool {
        var parent = n.parent
        var walked = 0
        while let id = parent, let node = graph[id], walked <= graph.nodes.count {
            if CauseChain.gathers(node.operatorName) || keepsEvery.contains(node.operatorName) { return true }
            parent = node.parent
            walked += 1
        }
        return false
    }

    /// Operators besides collect and reduce (``CauseChain/gathers(_:)``) whose output
    /// counts or folds every input, whatever their order.
    private static let keepsEvery: Set<String> = ["Scan", "TryScan", "Count", "IgnoreOutput"]
}
