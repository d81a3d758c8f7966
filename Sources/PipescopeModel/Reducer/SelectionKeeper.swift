import PipescopeGraph

/// Keeps the tree's selection on the stage the user chose, and when that stage's row
/// goes away, moves it somewhere near and says so.
///
/// The selection is an identity (``TreeSelection``), never a row number: rows move as
/// pipelines arrive and are pruned, and it stays on its stage. Before each message the
/// reducer remembers where the selection is (``init(_:)``); after it, if the selected
/// row is gone, ``keepSelectionVisible(_:)`` picks, in order:
///
/// 1. the stage itself in the group row that now holds it, or its nearest visible
///    downstream stage (folded away, grouped, pruned or hidden while its pipeline is
///    still shown);
/// 2. what is left of its pipeline: the pipeline's row nearest the old position;
/// 3. its nearest neighbour that is still shown (the row below it first, then above,
///    outwards: hiding ended pipelines removes others around it too), else the row now
///    at the old position.
///
/// Never silently the top of the list: unless the stage only moved into a group or
/// under a fold the user made, the status line says what became of it and what is
/// selected now (`#6 Just ended and was pruned: selected #1 Timer`), while the tree is on
/// screen (the pipelines table keeps and reports its own selection: ``AppState/Table``).
struct SelectionKeeper {
    private let selected: TreeSelection?
    /// The stage itself, then its downstream stages, innermost first; for a group, its
    /// newest members (the last one left when the others are pruned), then the stage
    /// they feed and downstream. The last is the pipeline's root.
    private let fallbacks: [NodeID]
    private let index: Int?
    /// The selectable rows around the selection, nearest first (below, above, and
    /// outwards), at most ``neighbourhood`` each side: where "the nearest row" is looked
    /// for when the selection's row goes away with others around it.
    private let neighbours: [TreeSelection]
    private let label: String
    private let notice: Notice?
    static let neighbourhood = 64

    init(_ state: AppState) {
        selected = state.tree.selected
        index = state.tree.currentIndex
        notice = state.session.notice
        var around: [TreeSelection] = []
        if let index {
            let rows = state.tree.rows
            for distance in 1...Self.neighbourhood {
                for i in [index + distance, index - distance] where rows.indices.contains(i) {
                    if let selection = rows[i].selection { around.append(selection) }
                }
            }
        }
        neighbours = around
        var chain: [NodeID] = []
        var id: NodeID?
        var label = ""
        switch selected {
        case .stage(let stage)?:
            id = stage
            label = Self.name(stage, in: state.cursor.graph)
        case .group(let group)?:
            if let g = state.tree.selectedGroup {
                chain += g.members.suffix(3).reversed()
                label = PipescopeModel.label(g, in: state.cursor.graph)
            }
            id = group.parent
        case nil:
            break
        }
        while let current = id {
            chain.append(current)
            id = state.cursor.graph[current]?.parent
        }
        fallbacks = chain
        self.label = label
    }

    /// Moves a selection whose row is gone (see the type's comment).
    func keepSelectionVisible(_ state: inout AppState) {
        guard let current = state.tree.selected, state.tree.index(of: current) == nil else { return }
        let graph = state.cursor.graph
        // 1. The stage's group, or the nearest stage downstream of it.
        for (i, id) in fallbacks.enumerated() where graph[id] != nil {
            if state.tree.index(of: .stage(id)) != nil {
                state.tree.selected = .stage(id)
                if i > 0 { say(&state, selecting: .stage(id)) }
                return
            }
            if let group = state.tree.groupOf[id] {
                state.tree.selected = .group(group)
                if i > 0, case .stage = selected { say(&state, selecting: .group(group)) }
                return
            }
        }
        // 2. What is left of its pipeline.
        let rows = state.tree.rows
        let old = min(index ?? 0, max(0, rows.count - 1))
        let candidates = rows.indices.filter { rows[$0].selection != nil }
        if let root = fallbacks.last {
            let same = candidates.filter { AppState.pipeline(of: rows[$0].id, in: graph) == root }
            if let pick = same.min(by: { abs($0 - old) < abs($1 - old) }) {
                state.tree.selected = rows[pick].selection
                say(&state, selecting: state.tree.selected)
                return
            }
        }
        // 3. Its nearest neighbour still shown (rows around it may have gone too), else
        // the row now at its old position.
        if let near = neighbours.first(where: { state.tree.index(of: $0) != nil }) {
            state.tree.selected = near
        } else {
            state.tree.selected = candidates.min { abs($0 - old) < abs($1 - old) }.flatMap { rows[$0].selection }
        }
        say(&state, selecting: state.tree.selected)
    }

    /// Tells the user where the selection went, unless they moved it out of sight
    /// themselves (a fold).
    private func say(_ state: inout AppState, selecting new: TreeSelection?) {
        // The table says what became of its own selection; the tree's is news only on it.
        guard !label.isEmpty, state.page.showsStages, !foldedAway(state) else { return }
        let now: String
        switch new {
        case .stage(let id)?: now = "selected " + Self.name(id, in: state.cursor.graph)
        case .group?: now = "selected " + (state.tree.selectedGroup.map { PipescopeModel.label($0, in: state.cursor.graph) } ?? "a group")
        case nil: now = "nothing left to select"
        }
        if let said = state.session.notice, said != notice {
            // The message said why itself (`x`: ended stages hidden): add where it went.
            state.session.notice = Notice(text: said.text + "; \(label): \(now)", isError: said.isError)
        } else {
            state.session.notice = Notice(text: "\(label) \(why(state)): \(now)", isError: false)
        }
    }

    private func why(_ state: AppState) -> String {
        guard let first = fallbacks.first else { return "is gone" }
        if state.cursor.graph[first] == nil {
            if state.cursor.position != nil, state.cursor.liveGraph[first] != nil {
                return "is not made yet at this point of history"
            }
            return "ended and was pruned"
        }
        if state.tree.hideEnded, state.cursor.graph[first]?.status.isTerminal == true { return "is hidden (x shows ended stages)" }
        if !state.tree.filter.isEmpty { return "does not match the filter" }
        return "is no longer shown"
    }

    /// Whether a fold the user made hides the stage (then moving to the fold is expected).
    private func foldedAway(_ state: AppState) -> Bool {
        fallbacks.dropFirst().contains { state.tree.collapsed.contains($0) }
    }

    private static func name(_ id: NodeID, in graph: Graph) -> String {
        "#\(id) " + (graph[id]?.operatorName ?? "stage")
    }
}
