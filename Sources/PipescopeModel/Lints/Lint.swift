import PipescopeGraph

/// A lint's stable name: how `-A` and `--dump-on` spell it, and how JSON, exports, the
/// warnings list and the detail pane show it (`unretained-cancellable`).
///
/// Each rule declares its own, in its file under `Rules/` (``LintRule``), so a new lint
/// touches no list of kinds; the kinds are those of ``LintRules/all``, in its order.
/// A struct rather than an enum for that reason: nothing switches over kinds, each rule
/// is asked through the list.
public struct LintKind: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    /// A kind, for the one rule that declares it.
    init(_ name: String) { rawValue = name }

    /// The kind of the rule named `rawValue`; nil when no rule has that name.
    public init?(rawValue: String) {
        guard let rule = LintRules.named(rawValue) else { return nil }
        self = rule.kind
    }

    public static var allCases: [LintKind] { LintRules.all.map { $0.kind } }

    public var description: String { rawValue }
}

/// One warning on one stage: what happened and what to do about it.
public struct Lint: Hashable, Sendable {
    public var kind: LintKind
    public var node: NodeID
    public var message: String

    public init(kind: LintKind, node: NodeID, message: String) {
        self.kind = kind
        self.node = node
        self.message = message
    }

    /// Whether its stage's own code is the mistake (``LintRule/pointsAtCode``).
    public var pointsAtCode: Bool { LintRules.named(kind.rawValue)?.pointsAtCode ?? false }
}

/// Computes the lints of a graph: asks each running rule of ``LintRules/all`` about each
/// stage. Everything comes from the graph the event stream folds into, so a recording
/// gets the same warnings as the live program did.
///
/// `now` (wall-clock nanoseconds) matters for the rules that read the clock (`stalled`,
/// which comes from the ``Waits`` verdicts, and `never-completes`); a recording passes
/// the time of its last event.
public struct Linter: Sendable, Equatable {
    /// Seconds without progress that make a stage or pipeline wait (``Waits``), and a
    /// waiting pipeline a `stalled` lint: `--stall-after`.
    public var stalledAfter: Double = 2
    /// A one-shot publisher still active after this long.
    public var neverCompletesAfter: Double = 30
    /// Milliseconds of a stage's own code per value that make the value slow: a frame at
    /// 60 Hz by default (`--slow-after`, the `slow-stage` lint).
    public var slowAfter: Double = 16
    /// `pile-up`: at least ``pileUpCount`` live pipelines made at one place, made over
    /// more than this many seconds (a burst, a list of rows subscribing at once, is no
    /// pile), none made there ended within it and some made within it. A minute: longer
    /// than a burst or a screen's setup takes, and that a screen opened by hand again and
    /// again shows in it; and as long as ended pipelines stay in the graph
    /// (``Retention/seconds``), so an end within it is seen.
    public var pileUpAfter: Double = 60
    /// `pile-up`: how many live pipelines from one place are a pile. Ten: fewer is the
    /// handful of subscriptions a screen or a model keeps on purpose (one per field, per
    /// tab), while a leak passes it within minutes.
    public var pileUpCount = 10
    /// Lints turned off (`-A name`).
    public var allowed: Set<LintKind> = [] {
        didSet { rules = Self.running(besides: allowed) }
    }
    /// The rules that run: ``LintRules/all`` but the ``allowed``, in the list's order.
    /// Kept with ``allowed`` because each pipeline's lints on every tick read it.
    public private(set) var rules: [any LintRule.Type] = LintRules.all

    public init(allowed: Set<LintKind> = []) {
        self.allowed = allowed
        rules = Self.running(besides: allowed)
    }

    private static func running(besides allowed: Set<LintKind>) -> [any LintRule.Type] {
        LintRules.all.filter { !allowed.contains($0.kind) }
    }

    /// Equal when they find the same lints: ``rules`` follows from ``allowed``.
    public static func == (a: Linter, b: Linter) -> Bool {
        a.stalledAfter == b.stalledAfter && a.neverCompletesAfter == b.neverCompletesAfter && a.slowAfter == b.slowAfter
            && a.pileUpAfter == b.pileUpAfter && a.pileUpCount == b.pileUpCount && a.allowed == b.allowed
    }

    /// Whether a running rule reads the pipelines' verdicts.
    var readsWaits: Bool { rules.contains { $0.readsWaits } }
    /// Whether a running rule reads the pipelines counted by place.
    var readsPlaces: Bool { rules.contains { $0.readsPlaces } }

    /// The lints of `graph` at `now`, in stage order, each stage's in the rules' order;
    /// `waits` are the verdicts at `now` when the caller has them already (computed here
    /// with ``stalledAfter`` otherwise, when a running rule reads them).
    public func lints(_ graph: Graph, now: Int64, waits: Waits? = nil) -> [Lint] {
        let verdicts = readsWaits ? (waits ?? Waits(graph, now: now, after: stalledAfter)) : Waits()
        let context = LintContext(graph: graph, now: now, linter: self, waits: verdicts,
                                  places: readsPlaces ? PlaceTally(graph) : PlaceTally())
        var found: [Lint] = []
        for id in graph.nodes.keys.sorted() {
            guard let n = graph[id] else { continue }
            lint(n, in: context, into: &found)
        }
        return found
    }

    /// The lints of stage `n`, appended to `found` in the order ``lints(_:now:waits:)``
    /// lists one stage's.
    func lint(_ n: NodeSummary, in context: LintContext, into found: inout [Lint]) {
        for rule in rules {
            for message in rule.check(n, in: context) {
                found.append(Lint(kind: rule.kind, node: n.id, message: message))
            }
        }
    }

    /// When time alone may next change the lints of stage `n` (`.max`: never): the
    /// earliest of the running rules' ``LintRule/due(_:in:)``.
    func due(_ n: NodeSummary, in context: LintContext) -> Int64 {
        var due = Int64.max
        for rule in rules { due = min(due, rule.due(n, in: context)) }
        return due
    }
}
