import PipescopeGraph

/// Everything the screen shows, derived from messages by ``reduce(_:_:)``.
///
/// Split by concern: the ``Session`` with the program, the ``HistoryCursor`` (events
/// kept and the graph on screen), the ``Tree`` pane and the ``Timeline`` panes, and the
/// ``Mode`` that says which layer has the keyboard. Only the reducer writes them; the
/// app sets the configuration (`linter`, `retention`, `historyLimit`) before the first
/// message.
///
/// ```swift
/// var state = AppState(targetName: "demo")
/// _ = reduce(&state, .attached(process: "demo", pid: 4242))
/// state.session.connection   // .connected
/// state.tree.rows            // the visible tree
/// ```
public struct AppState: Sendable {
    public internal(set) var session: Session
    public internal(set) var history = HistoryCursor()
    public internal(set) var tree = Tree()
    public internal(set) var timeline = Timeline()
    /// What has the keyboard.
    public internal(set) var mode: Mode = .browsing
    /// The last key the open help or warnings did not act on, so the hint bar can say
    /// why nothing happened. Cleared by the next key.
    public internal(set) var ignoredKey: Action?
    /// The pane the arrow keys act on (Tab and Shift-Tab move it).
    public internal(set) var focus: Pane = .tree
    public internal(set) var width = 80
    public internal(set) var height = 24

    // MARK: Warnings

    /// Which lints run (and which are allowed with -A).
    public var linter = Linter()
    /// The current warnings, recomputed on every tick.
    public private(set) var lints: [Lint] = []
    public private(set) var lintedNodes: Set<NodeID> = []
    /// The warnings list's rows: the same mistake in the same place once, with a count,
    /// newest first.
    public private(set) var lintGroups: [LintGroup] = []

    // MARK: Limits

    /// Ended stages are pruned with the same policy as the probe's.
    public var retention = Retention.standard
    /// Events kept for history and the event log (evicted oldest first, a checkpoint
    /// span at a time).
    public var historyLimit: Int {
        get { history.log.limit }
        set { history.log.limit = newValue }
    }

    public init(targetName: String, pid: Int32? = nil) {
        session = Session(targetName: targetName, pid: pid)
    }

    // MARK: - Across concerns

    /// The selected stage, or the first row's when nothing is selected yet; nil when the
    /// selection is on a group (``Tree/selectedGroup``).
    public var selectedNode: NodeSummary? {
        guard case .stage(let id)? = tree.current else { return nil }
        return history.graph[id]
    }

    /// The time at the right edge of the timeline: the cursor's event, or now.
    public var timelineEnd: Int64 { history.end(now: timeline.now) }

    /// Brings the tree's rows up to date with the graph on screen (once per change).
    mutating func refreshRows() {
        tree.refresh(from: history)
    }

    /// Recomputes the lints as of `now` (a recording passes its last event's time).
    mutating func refreshLints(now: Int64) {
        lints = linter.lints(history.graph, now: now)
        lintedNodes = Set(lints.map(\.node))
        lintGroups = LintGroup.grouping(lints, in: history.graph)
    }
}
