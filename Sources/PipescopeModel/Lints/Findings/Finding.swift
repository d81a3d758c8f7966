import PipescopeGraph

extension LintKind {
    /// A pipeline still active when a test's block ended, held by nothing the block
    /// released: raised by PipescopeTesting at a block's end, by no rule of ``LintRules``
    /// (a live program has no end to judge it at).
    public static let leakedSubscription = LintKind("leaked-subscription")
}

/// One mistake a run made, found by a lint: what `pipescope check` prints and a test
/// fails with. The same lint raised on many stages by the same mistake in the same place
/// (``LintGroup/key(_:stage:root:)``: 500 pipelines made by one forgotten `sink` in a
/// loop) is one finding with a ``count``.
///
/// ```swift
/// var collector = FindingCollector(linter: Linter())
/// collector.fold(batch)                 // as the run goes
/// collector.finish(now: lastEventTime)
/// let finding = collector.findings[0]
/// finding.kind       // .unretainedCancellable
/// finding.at?.short  // "main.swift:14": the line to change
/// finding.count      // 500
/// ```
public struct Finding: Hashable, Sendable {
    /// The lint that found it.
    public var kind: LintKind
    /// The lint's message, as it was the first time it was raised.
    public var message: String
    /// The first stage it was raised on (others of ``count`` were made at the same place).
    public var node: NodeID
    /// The line to change (``Graph/lineToChange(_:ownCode:)``, as `snapshot --json` and
    /// `explain --json` give each lint's `at`); nil when the run never said where.
    public var at: SourceLocation?
    /// When it was first raised (wall-clock nanoseconds, the run's clock).
    public var raisedNanos: Int64
    /// How many stages raised it: the same mistake in the same place, counted once each.
    public var count: Int

    public init(kind: LintKind, message: String, node: NodeID, at: SourceLocation?, raisedNanos: Int64, count: Int = 1) {
        self.kind = kind
        self.message = message
        self.node = node
        self.at = at
        self.raisedNanos = raisedNanos
        self.count = count
    }

    /// `Feed.swift:88: unretained-cancellable: cancelled as soon as … (stage #4, ×500)`:
    /// the place first, as compilers print theirs, so an editor or a CI log links it.
    public var line: String {
        let place = at.map { l -> String in
            guard let file = l.file else { return l.short }
            return l.line.map { "\(file):\($0)" } ?? file
        } ?? "(place unknown)"
        let times = count > 1 ? ", ×\(count)" : ""
        return "\(place): \(kind.rawValue): \(message) (stage #\(node)\(times))"
    }
}
