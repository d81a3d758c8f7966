import DequeModule
import Foundation
import PipescopeGraph

/// Whether the inspector is attached to a live program.
public enum ConnectionState: Equatable, Sendable {
    case connecting
    case connected
    case disconnected(String)
    /// Showing a recording, offline.
    case replay(String)
}

/// A one-line message for the user: a command's answer, or why it was not sent.
public struct Notice: Equatable, Sendable {
    public var text: String
    public var isError: Bool

    public init(text: String, isError: Bool) {
        self.text = text
        self.isError = isError
    }
}

/// Everything the screen shows, derived from messages by ``reduce(_:_:)``.
public struct AppState: Sendable {
    /// What is being inspected: "demo", or the program's name.
    public var targetName: String
    public var pid: Int32?
    public var connection: ConnectionState = .connecting
    /// The graph on screen: the live one, or the one at the history cursor.
    public var graph = Graph() { didSet { refreshRows() } }
    /// The program's graph now, whatever the cursor shows.
    public internal(set) var liveGraph = Graph()
    /// Every event with checkpoints, for moving back in time.
    public internal(set) var timeline = History()
    /// Position in `timeline` being shown (events applied), or nil when following live.
    public internal(set) var cursor: Int?
    /// Events kept for history and the event log (evicted oldest first, a checkpoint
    /// span at a time).
    public var historyLimit: Int {
        get { timeline.limit }
        set { timeline.limit = newValue }
    }
    public var selection: NodeID?
    public var collapsed: Set<NodeID> = [] { didSet { refreshRows() } }
    /// The `/` filter: a substring, or a regular expression when it is one. Empty: none.
    public internal(set) var filter = "" { didSet { refreshRows() } }
    /// The filter is being typed.
    public internal(set) var editingFilter = false
    /// Ended pipelines are hidden (`x`).
    public internal(set) var hideEnded = false { didSet { refreshRows() } }
    /// Stages matching the filter, in row order.
    public private(set) var matches: [NodeID] = []
    public var showHelp = false
    /// A cancel waiting for confirmation.
    public var pendingCancel: CancelPreview?
    /// Stages whose every value the program describes, at the user's request (`v`).
    public var watched: Set<NodeID> = []
    /// The last answer from the program, or a refusal, for the status line.
    public var notice: Notice?
    /// Events this inspector missed because it fell behind (the probe resynchronised it
    /// with a snapshot instead of waiting): shown beside the probe's own drops.
    public internal(set) var skippedEvents: UInt64 = 0
    /// The program (or this inspector) is read-only.
    public var readOnly = false
    /// Which lints run (and which are allowed with -A).
    public var linter = Linter()
    /// The current warnings, recomputed on every tick.
    public private(set) var lints: [Lint] = []
    public private(set) var lintedNodes: Set<NodeID> = []
    /// The list of warnings is open (`w`).
    public var showLints = false
    /// The program's pipelines are paused at the gate.
    public private(set) var paused = false
    /// Events waiting at the gate, oldest (next to be released) first.
    public private(set) var pending: [PendingEvent] = []
    /// Digits typed before `n`.
    public var countPrefix = 0
    /// Which waiting event `n` releases: an index into `pending`, 0 the oldest (`>` moves it).
    public internal(set) var chosenPending = 0

    /// The waiting event `n` will release.
    public var nextPending: PendingEvent? {
        pending.isEmpty ? nil : pending[min(chosenPending, pending.count - 1)]
    }
    /// Each stage's recent events for its timeline lane, newest last.
    public internal(set) var lanes: [NodeID: Deque<LaneMark>] = [:]
    /// Nanoseconds of time per timeline column (zoom with + and -).
    public var timelineScale: Int64 = 100_000_000
    /// The right edge of the timeline while live: the last tick's clock.
    public internal(set) var now: Int64 = 0
    /// The event log shows only the selected stage's events.
    public var logFollowsSelection = false
    /// The pane the arrow keys act on (Tab and Shift-Tab move it).
    public var focus: Pane = .tree
    /// Wall-clock time of the newest event seen (a recording's "now").
    public private(set) var lastEventNanos: Int64 = 0
    public var rate = EventRate()
    /// Ended stages are pruned with the same policy as the probe's.
    public var retention = Retention.standard
    var lastPrune: Int64 = 0
    public var width = 80
    public var height = 24
    /// Rows the tree pane shows at once; the app reports it so paging moves a screenful.
    public var treePageSize = 10
    /// The first tree row on screen. Kept in the state so that moving the selection
    /// inside the visible rows does not scroll the list.
    public var treeOffset = 0

    public init(targetName: String, pid: Int32? = nil) {
        self.targetName = targetName
        self.pid = pid
    }

    /// The tree as currently visible. Derived from the graph, the folds, the filter and
    /// the ended-pipelines switch whenever one changes, once, rather than by every view
    /// on every frame.
    public private(set) var rows: [TreeRow] = []

    private mutating func refreshRows() {
        var all = graph.rows(collapsed: collapsed)
        if hideEnded {
            all = all.filter { row in
                var root = row.id
                while let p = graph[root]?.parent { root = p }
                return !graph.isEnded(root)
            }
        }
        guard !filter.isEmpty else {
            rows = all
            matches = []
            return
        }
        let matcher = FilterMatcher(filter)
        let hits = Set(graph.nodes.values.filter { matcher.matches($0) }.map(\.id))
        var keep = hits
        for id in hits {
            var parent = graph[id]?.parent
            while let p = parent, keep.insert(p).inserted { parent = graph[p]?.parent }
        }
        rows = all.filter { keep.contains($0.id) }
        matches = rows.filter { hits.contains($0.id) && $0.isStage }.map(\.id)
    }

    /// The selected stage and its downstream stages, innermost first: where the
    /// selection falls back to when the stage is pruned or hidden.
    var selectionChain: [NodeID] {
        var chain: [NodeID] = []
        var id = selection
        while let current = id {
            chain.append(current)
            id = graph[current]?.parent
        }
        return chain
    }

    /// The selected stage, or the first row when nothing is selected yet.
    public var selectedNode: NodeSummary? {
        if let selection, let node = graph[selection] { return node }
        return rows.first.flatMap { graph[$0.id] }
    }

    /// Recomputes the lints as of `now` (a recording passes its last event's time).
    public mutating func refreshLints(now: Int64) {
        lints = linter.lints(graph, now: now)
        lintedNodes = Set(lints.map(\.node))
    }

    static let laneLength = 256

    /// Adds each event's mark to its stage's lane. A cancel is recorded on the stage that
    /// owns the subscription; like the graph, every stage sharing it shows the cancel.
    mutating func recordLanes(_ events: [StageEvent]) {
        for e in events where e.kind != .demand && e.kind != .unknown {
            let stages = e.kind == .cancelled ? [e.node] + (liveGraph[e.node]?.sharers ?? []) : [e.node]
            for stage in stages {
                lanes[stage, default: []].append(LaneMark(time: e.time, kind: e.kind))
                if lanes[stage]!.count > Self.laneLength { lanes[stage]!.removeFirst() }
            }
        }
    }

    /// The time at the right edge of the timeline: the cursor's event, or now.
    public var timelineEnd: Int64 {
        if let cursor, let event = timeline.event(at: cursor) { return event.time }
        return max(now, lastEventNanos)
    }

    mutating func setGate(_ gate: GateState) {
        paused = gate.paused
        pending = gate.paused ? gate.pending : []
    }

    mutating func noteLastEvent(_ events: [StageEvent]) {
        if let last = events.last?.time, last > lastEventNanos { lastEventNanos = last }
    }
}

/// One event on a stage's timeline lane.
public struct LaneMark: Hashable, Sendable {
    public var time: Int64
    public var kind: EventKind
}

/// Matches stages against the `/` filter: a case-insensitive substring, or a regular
/// expression when the text is one (it compiles and uses a regex character), against
/// the operator, the publisher's type, and the last value. (Not the subscriber: a
/// stage would match its downstream's name.)
struct FilterMatcher {
    private let text: String
    private let regex: NSRegularExpression?

    init(_ text: String) {
        self.text = text.lowercased()
        let looksLikeRegex = text.rangeOfCharacter(from: CharacterSet(charactersIn: "^$.*+?()[]{}|\\")) != nil
        regex = looksLikeRegex ? try? NSRegularExpression(pattern: text, options: [.caseInsensitive]) : nil
    }

    func matches(_ node: NodeSummary) -> Bool {
        for field in [node.operatorName, node.publisherType, node.lastValue ?? ""] {
            if let regex {
                if regex.firstMatch(in: field, range: NSRange(field.startIndex..., in: field)) != nil { return true }
            } else if field.lowercased().contains(text) {
                return true
            }
        }
        return false
    }
}

/// The panes of the full layout, in Tab order.
public enum Pane: String, CaseIterable, Sendable {
    case tree, timeline, detail, events

    public var next: Pane { Pane.allCases[(Pane.allCases.firstIndex(of: self)! + 1) % Pane.allCases.count] }
    public var previous: Pane {
        Pane.allCases[(Pane.allCases.firstIndex(of: self)! + Pane.allCases.count - 1) % Pane.allCases.count]
    }
}
