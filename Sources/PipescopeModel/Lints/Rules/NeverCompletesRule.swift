import PipescopeGraph

extension LintKind {
    public static let neverCompletes = LintKind("never-completes")
}

/// A one-shot publisher (one value or completion, then done) still active after
/// ``Linter/neverCompletesAfter`` seconds.
enum NeverCompletesRule: LintRule {
    static let kind = LintKind.neverCompletes
    static var summary: String {
        "a one-shot publisher (Future, a data task, Just, Deferred, first(), last()) "
            + "still active after \(Int(Linter().neverCompletesAfter)) s"
    }
    static let advice = "its promise is never fulfilled, or its upstream never finishes."
    /// The line to change is the code that made the promise (its `Future`'s builder, such
    /// as the `flatMap` closure that returned it), not where the pipeline was subscribed.
    static let pointsAtCode = true

    /// Publishers that deliver one value or completion and finish.
    static let oneShot: Set<String> = ["Future", "DataTaskPublisher", "Just", "Deferred", "First", "Last"]

    /// The last moment stage `n` is not yet flagged, were no event to come: a one-shot
    /// publisher, still active, is flagged once more than the threshold has passed since
    /// its making, time the program was paused by an inspector left out (``Graph/pauses``,
    /// as known at ``LintContext/now``). Nil for any other stage. The check and
    /// ``due(_:in:)`` both read it, so the threshold is applied in one place.
    static func deadline(_ n: NodeSummary, in context: LintContext) -> Int64? {
        guard n.status == .active, oneShot.contains(n.operatorName) else { return nil }
        let held = context.graph.pauses.overlap(from: n.createdNanos, to: context.now)
        let (sum, overflow) = n.createdNanos.addingReportingOverflow(Int64(context.linter.neverCompletesAfter * 1e9) &+ held)
        return overflow ? .max : sum
    }

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        guard let deadline = deadline(n, in: context), context.now > deadline else { return [] }
        return ["a one-shot \(n.operatorName) still active after \(Int(context.linter.neverCompletesAfter)) s: " + advice]
    }

    static func due(_ n: NodeSummary, in context: LintContext) -> Int64 {
        guard let deadline = deadline(n, in: context), context.now <= deadline, deadline < .max else { return .max }
        return deadline + 1
    }
}
