import PipescopeGraph

extension LintKind {
    public static let slowStage = LintKind("slow-stage")
}

/// A stage whose own code (a `map`'s closure, a sink's) took longer than a frame
/// (``Linter/slowAfter``, 16 ms) for several of its values: the thread that delivers each
/// value waits for it, so on the main thread the app drops a frame each time.
///
/// Judged on the self time the tap keeps per stage (``StageTimes``: the time in the
/// stage's code minus the deliveries it made downstream, charged to the operator whose
/// code it is), so a slow stage downstream does not make its upstream look slow.
///
/// "Several" is at least ``minimumSlow`` values, and at least 1 in ``maximumRarity`` of
/// the stage's values. One slow value is a warm-up (a lazy global made, a cache filled,
/// code paged in on first use); two can be the scheduler: self time is wall time, and on
/// a busy machine a thread preempted in the middle of a value is charged for the wait.
/// Three in a short run, or a steady share of a long one, is the code.
///
/// ```
/// slow-stage  #4 Map (Feed.swift:41): its code took longer than a frame (16 ms) for 6 of
///             120 values (p50 1.2 ms, max 31 ms). …
/// ```
enum SlowStageRule: LintRule {
    static let kind = LintKind.slowStage
    static var summary: String {
        "a stage whose own code took longer than --slow-after (a frame, \(Int(Linter().slowAfter)) ms) for several values"
    }
    /// The line to change is the slow closure's (``NodeSummary/code``).
    static let pointsAtCode = true
    static let advice = "Each value waits for it on the thread that delivers it: move the work off that thread "
        + "(receive(on:) a background queue before it, and back to the main queue after), or do less per value."

    /// Fewer slow values than this are never a slow stage (a warm-up, the scheduler).
    static let minimumSlow = 3
    /// Nor slow values rarer than 1 in this many: preemption on a busy machine over a
    /// long run.
    static let maximumRarity = 100

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        let line = Int64(context.linter.slowAfter * 1e6)
        // Most stages: no time, or none over the line (the exact max says so at once,
        // without copying the histograms).
        guard n.longestTime >= line, let times = n.times else { return [] }
        let own = slowness(times.own, line: line)
        let sink = n.parent == nil ? slowness(times.sink, line: line) : nil
        guard own != nil || sink != nil else { return [] }
        let stage = "#\(n.id) \(n.operatorName)" + (place(of: n.id, in: context.graph).map { " (\($0))" } ?? "")
        let over = context.linter.slowAfter == Linter().slowAfter
            ? "a frame (\(CellText.duration(line)))" : "--slow-after (\(CellText.duration(line)))"
        var messages: [String] = []
        // The operator's own code (a map's closure), and a root's sink's.
        if let own { messages.append(message(code: stage, own, over: over)) }
        if let sink { messages.append(message(code: "\(n.subscriber), the subscriber of \(stage),", sink, over: over)) }
        return messages
    }

    /// How many of `h`'s values took `line` or longer, when they are several.
    static func slowness(_ h: TimeHistogram, line: Int64) -> (count: Int, of: Int, p50: Int64, max: Int64)? {
        let over = h.count(atLeast: max(1, line))
        guard over >= minimumSlow, over * maximumRarity >= h.count else { return nil }
        return (over, h.count, h.p50, h.max)
    }

    /// Where the code to change is: the stage's closure (its code place), else where its
    /// pipeline was subscribed.
    static func place(of id: NodeID, in graph: Graph) -> String? {
        graph.lineToChange(id, ownCode: true)?.short
    }

    static func message(code: String, _ slow: (count: Int, of: Int, p50: Int64, max: Int64), over: String) -> String {
        "\(code) took longer than \(over) for \(slow.count) of \(slow.of) values "
            + "(p50 \(CellText.duration(slow.p50)), max \(CellText.duration(slow.max))). " + advice
    }
}
