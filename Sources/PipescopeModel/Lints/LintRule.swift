import PipescopeGraph

/// One lint: its name, what it finds, what to do about it, how it judges a stage, and
/// when time alone may change its verdict. Each is a type in a file of its own under
/// `Rules/`, listed once in ``LintRules/all``; the linter, the inspector's per-pipeline
/// lints, `-A`, `--dump-on` and the help all read that list, so a new lint is that file
/// and its line in the list.
///
/// ```swift
/// extension LintKind {
///     public static let subscribedTwice = LintKind("subscribed-twice")
/// }
///
/// enum SubscribedTwiceRule: LintRule {
///     static let kind = LintKind.subscribedTwice
///     static let summary = "a stage subscribed to the same upstream publisher twice at once"
///     static let advice = "Subscribe once, or share() the publisher so both read one subscription."
///     static func check(_ stage: NodeSummary, in context: LintContext) -> [String] {
///         let live = stage.children.compactMap { context.graph[$0] }.filter { $0.status == .active }
///         let types = live.map(\.publisherType)
///         return Set(types).count < types.count ? ["subscribed twice to the same publisher at once. " + advice] : []
///     }
/// }
/// ```
public protocol LintRule: Sendable {
    /// The lint's name: how `-A` and `--dump-on` spell it, and how JSON, exports and the
    /// warnings list show it.
    static var kind: LintKind { get }
    /// What it finds, in one line: `-A`'s help and its error list it.
    static var summary: String { get }
    /// What to do about it: how the messages of ``check(_:in:)`` end (the `stalled` lint
    /// says the part of it that fits why its pipeline waits).
    static var advice: String { get }
    /// Whether ``check(_:in:)`` reads ``LintContext/waits``: the pipelines' verdicts are
    /// judged for the whole graph only when a running rule does.
    static var readsWaits: Bool { get }
    /// Whether the stage's own code is the mistake this lint finds (a source that never
    /// sends, a slow closure): its `"at"` (``Graph/lineToChange(_:ownCode:)``) is then the
    /// stage's code, or the function that built it, rather than where it was subscribed.
    static var pointsAtCode: Bool { get }
    /// Whether ``check(_:in:)`` reads ``LintContext/places``: the pipelines are counted
    /// by place only when a running rule does.
    static var readsPlaces: Bool { get }
    /// Whether the verdict may change when the stage's location arrives (a batch or two
    /// after the stage: the symbol thread looks it up), with nothing else happening: a
    /// rule that excuses by place (`unretained-cancellable`: a dictionary entry replaced at
    /// the same line). A run's findings (``FindingCollector``) hold such a lint raised on
    /// a stage not yet located until its location comes, and keep it only if it still holds.
    static var readsLocations: Bool { get }
    /// The messages of this lint on `stage` as of ``LintContext/now``: none while the
    /// stage keeps the rule, one per mistake otherwise.
    static func check(_ stage: NodeSummary, in context: LintContext) -> [String]
    /// The earliest time after ``LintContext/now`` at which ``check(_:in:)`` on `stage`
    /// may answer otherwise with no event on the graph (`.max`: only an event changes
    /// it). A rule that reads the clock says when: the inspector's tick checks a pipeline
    /// again at the earliest of its stages', and at no other time without an event.
    static func due(_ stage: NodeSummary, in context: LintContext) -> Int64
}

extension LintRule {
    public static var readsWaits: Bool { false }
    public static var pointsAtCode: Bool { false }
    public static var readsPlaces: Bool { false }
    public static var readsLocations: Bool { false }
    public static func due(_ stage: NodeSummary, in context: LintContext) -> Int64 { .max }
}

/// What a rule judges a stage against: the graph at one moment, the linter's thresholds,
/// and where the pipelines wait then.
public struct LintContext: Sendable {
    public let graph: Graph
    /// The moment judged: the cursor's time (a recording's, in history), never the wall
    /// clock of the machine replaying it.
    public let now: Int64
    /// The thresholds (``Linter/stalledAfter``, ``Linter/neverCompletesAfter``, ``Linter/slowAfter``).
    public let linter: Linter
    /// The verdicts at ``now``: the whole graph's for ``Linter/lints(_:now:waits:)``, one
    /// pipeline's for the inspector's tick; empty when no running rule reads them.
    public let waits: Waits
    /// When ``waits`` may next change with no event (a flowing stage starting to wait):
    /// known for one pipeline's; `.max` for the whole graph's, which nothing asks to fall
    /// due.
    public let waitsDue: Int64
    /// The pipelines counted by where they were made (the whole graph's, whoever asks);
    /// empty when no running rule reads them.
    let places: PlaceTally
    /// The waiting pipelines by the stage that holds each wait, in root order.
    private let held: [NodeID: [(root: NodeID, wait: Wait)]]

    init(graph: Graph, now: Int64, linter: Linter, waits: Waits, waitsDue: Int64 = .max, places: PlaceTally = PlaceTally()) {
        self.graph = graph
        self.now = now
        self.linter = linter
        self.waits = waits
        self.waitsDue = waitsDue
        self.places = places
        var held: [NodeID: [(root: NodeID, wait: Wait)]] = [:]
        for (root, wait) in waits.pipelines.sorted(by: { $0.key < $1.key }) {
            held[wait.at, default: []].append((root, wait))
        }
        self.held = held
    }

    /// The waiting pipelines whose wait `stage` holds, in root order.
    public func pipelinesWaiting(on stage: NodeID) -> [(root: NodeID, wait: Wait)] { held[stage] ?? [] }
}
