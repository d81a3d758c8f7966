import PipescopeGraph

/// Everything the screen shows, derived from messages by ``reduce(_:_:)``.
///
/// Split by concern: the ``Session`` with the program, the ``HistoryCursor`` (events
/// kept and the graph on screen), the ``Tree`` pane and the ``Timeline`` panes, and the
/// ``KeyLayer`` that says which layer has the keyboard. Only the reducer writes them; the
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
    /// Where in time the screen is: every event kept, the position shown (nil: live),
    /// and the graph at that position.
    public internal(set) var cursor = HistoryCursor()
    public internal(set) var tree = Tree()
    /// The pipelines table (the first screen).
    public internal(set) var table = Table()
    /// Which screen the body shows: the pipelines table or the stage tree (`t`).
    public internal(set) var page: Page = .table
    public internal(set) var timeline = Timeline()
    /// The program's earlier runs, when it ended and started again while attached.
    public internal(set) var runs = Runs()
    /// Where the probe dropped events, for the event log and the timeline to show.
    public internal(set) var drops = DropGaps()
    /// What has the keyboard, with the state of the overlay it opens.
    public internal(set) var layer: KeyLayer = .browsing
    /// The pane the arrow keys act on (Tab and Shift-Tab move it, among ``panesShown``).
    public internal(set) var focus: Pane = .tree
    /// How far the Stage pane is scrolled (Tab to it, then the arrows).
    public internal(set) var detail = DetailScroll()
    /// What the layout gives each part of the screen (the resize message).
    public internal(set) var geometry = Geometry()
    public var width: Int { geometry.width }
    public var height: Int { geometry.height }

    /// The panes of the tree screen that Tab goes to, in its order: all four when the
    /// layout has room for the timeline and the event log (it gives the timeline a
    /// width), else the tree and the Stage pane. Tab never goes to a pane an 80x24 screen
    /// does not show: the arrows there would move through the history in an event log
    /// nobody sees.
    public var panesShown: [Pane] { geometry.timelineWidth > 0 ? Pane.allCases : [.tree, .detail] }

    /// The lifecycle warnings on the graph on screen, as of the last tick.
    public internal(set) var warnings = Warnings()

    // MARK: Limits

    /// Which lints run (and which are allowed with -A).
    public var linter: Linter {
        get { warnings.linter }
        set { warnings.linter = newValue }
    }
    /// The inspector started the program it shows and stops it on quitting (plain
    /// `pipescope` runs the demo so): the help says so on `q`.
    public var quitStopsProgram = false
    /// Ended stages are pruned with the same policy as the probe's.
    public var retention = Retention.standard
    /// Events kept for history and the event log (evicted oldest first, a checkpoint
    /// span at a time).
    public var historyLimit: Int {
        get { cursor.log.limit }
        set { cursor.log.limit = newValue }
    }
    /// Where events beyond ``historyLimit`` go (``HistorySpill``): nil keeps only that many
    /// in memory and evicts the rest; set, history reaches the first event.
    public var historySpill: HistorySpill.Options? {
        get { cursor.log.spill }
        set { cursor.log.spill = newValue }
    }

    public init(targetName: String, pid: Int32? = nil) {
        session = Session(targetName: targetName, pid: pid)
    }

    // MARK: - Across concerns

    /// The selected stage, or the first row's when nothing is selected yet; nil when the
    /// selection is on a group (``Tree/selectedGroup``).
    public var selectedNode: NodeSummary? {
        guard case .stage(let id)? = tree.current else { return nil }
        return cursor.graph[id]
    }

    /// The moment on screen: the cursor's event, or now while live (the table's ages and
    /// the timeline's cursor are relative to it).
    public var timelineEnd: Int64 { cursor.end(now: timeline.now) }

    /// The time at the timeline's right edge: now while live; in the past, the window
    /// the cursor moves in (``Timeline/windowEnd``).
    public var timelineWindowEnd: Int64 {
        cursor.position == nil ? timelineEnd : timeline.windowEnd ?? timelineEnd
    }

    /// The timeline's lanes' width in the layout on screen.
    public var timelineWidth: Int { page == .timeline ? geometry.timelineScreenWidth : geometry.timelineWidth }

    /// The cursor's moment while looking at the past (``timelineEnd``; at `g`, before the
    /// first event kept, that event's time); nil while live.
    public var cursorMoment: Int64? { cursor.position == nil ? nil : timelineEnd }

    /// Brings the tree's rows up to date with the graph on screen (once per change), only
    /// while the tree is on screen: on the table, laying out every stage on each batch
    /// would be most of a batch's cost. Showing the tree brings them up to date first.
    /// Keeps the cursor's moment inside the timeline's window (after every message).
    mutating func keepCursorInTimeline() {
        timeline.keep(cursorMoment, width: timelineWidth)
    }

    /// The moment the lints and waits are judged at: the cursor's event in the past
    /// (``timelineEnd``), a recording's last event at its end, the last tick's clock while
    /// live; an earlier run shown at its end, the moment it ended (it was watched until
    /// then: what waited at its last event had waited that long).
    var lintMoment: Int64 {
        if let viewing = runs.viewing, cursor.position == cursor.log.end, let ended = runs.earlier[viewing].endedAt {
            return ended
        }
        return cursor.position != nil || session.isReplay ? timelineEnd : timeline.now
    }

    /// Lints the graph on screen again at ``lintMoment``, and tells the table which
    /// pipelines' lints changed.
    mutating func refreshWarnings() {
        let changes = cursor.takeChanges(for: .warnings)
        warnings.refresh(cursor.graph, now: lintMoment, changes: changes)
        table.noteLintsChanged(warnings.changed)
    }

    mutating func refreshRows() {
        guard page.showsStages else { return }
        tree.refresh(from: cursor, waits: warnings.waits)
    }

    /// Brings the table's rows up to date (only while it is on screen: the tree does not
    /// need them), and says so when the selected pipeline has left.
    mutating func refreshTable() {
        guard page == .table else { return }
        let changes = cursor.takeChanges(for: .table)
        if let (gone, now) = table.refresh(cursor: cursor, warnings: warnings, now: timelineEnd,
                                           hideEnded: tree.hideEnded, changes: changes) {
            let many = gone.fold != nil
            let what = cursor.position == nil ? "ended and \(many ? "were" : "was") pruned"
                : "\(many ? "do" : "does") not exist at this point in history"
            // A row's ID cell names it: `#12`, or a folded row's `×5`.
            let then = now.map { ": selected \(TableColumn.id.text($0, 0)) \($0.name.text)" } ?? ""
            session.notice = Notice(text: "\(TableColumn.id.text(gone, 0)) \(gone.name.text) \(what)\(then)", isError: false)
        }
        table.keepSelectionOnScreen()
    }

    /// What the table is made from besides the live graph's progress: a key that
    /// changes none of it leaves the rows to the next tick (``keepTableAsBuilt()``).
    struct TableView: Equatable {
        var page: Page
        var hideEnded: Bool
        var folding: Bool
        var run: Int?
        var position: Int?
    }

    var tableView: TableView {
        TableView(page: page, hideEnded: tree.hideEnded, folding: table.folding, run: runs.viewing, position: cursor.position)
    }

    /// After a key that changed nothing the table is made from: its rows stay as last
    /// built (sorted again if the key changed the sort), and the selection on screen.
    mutating func keepTableAsBuilt() {
        guard page == .table else { return }
        table.sortAgain()
        table.keepSelectionOnScreen()
    }

    /// The root of the pipeline stage `id` is in, in the graph on screen.
    public func pipeline(of id: NodeID) -> NodeID? { Self.pipeline(of: id, in: cursor.graph) }

    /// The root of the pipeline stage `id` is in, in `graph`; nil if a stage on the way
    /// down is not in it.
    static func pipeline(of id: NodeID, in graph: Graph) -> NodeID? {
        var current = id
        for _ in 0...graph.nodes.count {
            guard let node = graph[current] else { return nil }
            guard let parent = node.parent, parent != current else { return current }
            current = parent
        }
        return nil
    }

}
