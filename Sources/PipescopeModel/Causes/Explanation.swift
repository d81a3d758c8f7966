import PipescopeGraph

/// What the explain overlay (`e`) shows: where an event came from (its ``CauseChain``),
/// or, when there is no chain to show, why.
///
/// `e` acts on the event the event log has selected (the history cursor's, or the
/// newest in the log while the Events pane has the focus), otherwise on the selected
/// stage's last value (on the table: the pipeline's root's, what its sink got).
///
/// ```swift
/// let explanation = Explanation.of(state)
/// explanation.title    // "Where #1 Map's last value came from"
/// explanation.chain    // its chain, or nil and a `message`
/// ```
public struct Explanation: Equatable, Sendable {
    public var title: String
    public var chain: CauseChain?
    /// Why there is no chain: no value yet, nothing selected.
    public var message: String?
    /// Scrolling and the last key ignored (see ``Overlay``).
    public internal(set) var overlay = Overlay()

    public init(title: String, chain: CauseChain?, message: String? = nil) {
        self.title = title
        self.chain = chain
        self.message = message
    }

    /// What `e` explains in `state`: the selected event, else stage `stage` (nil: the
    /// tree's selected stage).
    public static func of(_ state: AppState, stage: NodeID? = nil) -> Explanation {
        let log = state.cursor.log
        let graph = state.cursor.graph
        if let position = state.cursor.position, stage == nil {
            return event(at: position, state)
        }
        if state.focus == .events, stage == nil {
            // The newest event the log lists (one stage's, one pipeline's, or any).
            guard let newest = log.events(endingAt: log.end, count: 1, among: state.eventLog.stages).last else {
                return Explanation(title: "Where this came from", chain: nil, message: "The event log is empty: nothing to explain yet.")
            }
            return event(at: newest.position, state)
        }
        guard let id = stage ?? state.selectedNode?.id, let node = graph[id] else {
            return Explanation(title: "Where this came from", chain: nil,
                               message: "Select a stage, or an event in the event log (Tab, then ↑ ↓), to explain it.")
        }
        let title = "Where #\(id) \(node.operatorName)'s last value came from"
        if let chain = CauseChain.lastValue(of: id, upTo: state.cursor.position, in: log, graph: graph) {
            return Explanation(title: title, chain: chain)
        }
        let message = node.values == 0
            ? "#\(id) \(node.operatorName) has delivered no value yet: nothing to explain."
            : "#\(id) \(node.operatorName)'s last value is earlier than the history kept: its chain is not known."
        return Explanation(title: title, chain: nil, message: message)
    }

    private static func event(at position: Int, _ state: AppState) -> Explanation {
        let log = state.cursor.log
        guard let chain = CauseChain.at(position, in: log, graph: state.cursor.graph), let first = chain.hops.first else {
            return Explanation(title: "Where this came from", chain: nil, message: "No event here to explain.")
        }
        let what = first.kind == .value ? "value" : "\(first.kind)"
        return Explanation(title: "Where #\(first.stage) \(first.operatorName)'s \(what) (event \(first.id)) came from",
                           chain: chain)
    }
}

// MARK: - Layout (shared by the overlay and the reducer's scrolling)

extension Explanation {
    /// The overlay's width on a body `bodyWidth` wide: most of it, at least 60 columns.
    public static func boxWidth(bodyWidth: Int) -> Int { min(bodyWidth, max(60, bodyWidth * 9 / 10)) }

    /// Lines of text the overlay shows at once on a terminal `height` rows tall: all but
    /// the status and hint bars, the box's borders and its footer.
    public static func visibleLines(height: Int) -> Int { max(1, height - 5) }

    /// The text wrapped at `width` columns: each line of ``CauseChainText/lines(_:)`` (or
    /// the message), cut between its fields (two spaces) where one fits, else at a space,
    /// continued indented by 4 so that a hop reads as one.
    /// `spelled` rewrites each line before it is wrapped (a view's ASCII forms).
    public func lines(width: Int, spelled: (String) -> String = { $0 }) -> [String] {
        let text = chain.map(CauseChainText.lines) ?? [message ?? ""]
        return text.flatMap { Self.wrap(spelled($0), width: max(8, width)) }
    }

    static func wrap(_ line: String, width: Int) -> [String] {
        var lines: [String] = []
        var rest = Substring(line)
        var first = true
        while !rest.isEmpty {
            let indent = first ? "" : "    "
            let room = width - indent.count
            if rest.count <= room {
                lines.append(indent + rest)
                break
            }
            let window = rest.prefix(room + 1)
            let field = window.indices.last { i in
                window[i] == " " && window.index(after: i) < window.endIndex && window[window.index(after: i)] == " "
                    && window[..<i].contains { $0 != " " }
            }
            if let space = field ?? window.lastIndex(of: " "), rest[..<space].contains(where: { $0 != " " }) {
                lines.append(indent + rest[..<space])
                rest = rest[space...].drop { $0 == " " }
            } else {
                lines.append(indent + rest.prefix(room))
                rest = rest.dropFirst(room)
            }
            first = false
        }
        return lines.isEmpty ? [""] : lines
    }
}
