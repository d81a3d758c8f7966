import PipescopeGraph

/// Applies one message to the state and says what the app loop must do next.
///
/// The only place state changes. Rendering reads the state and never writes it.
public func reduce(_ state: inout AppState, _ message: Message) -> [Effect] {
    switch message {
    case .action(let action):
        return apply(action, to: &state)
    case .attached(let process, let pid):
        state.connection = .connected
        state.pid = pid
        if state.targetName.isEmpty { state.targetName = process }
    case .snapshot(let snapshot):
        state.graph.load(snapshot)
    case .batch(let batch):
        state.graph.apply(batch)
        state.remember(batch.events)
        state.rate.record(batch.events.count)
    case .disconnected(let why):
        state.connection = .disconnected(why)
    case .tick(let nanos):
        state.rate.tick(nanos)
        if nanos - state.lastPrune >= 1_000_000_000 {
            state.lastPrune = nanos
            state.graph.prune(now: nanos, retention: state.retention)
        }
    case .resize(let width, let height):
        state.width = width
        state.height = height
    }
    keepSelectionVisible(&state)
    return []
}

private func apply(_ action: Action, to state: inout AppState) -> [Effect] {
    if state.showHelp {
        switch action {
        case .quit: return [.quit]
        case .toggleHelp, .dismiss: state.showHelp = false
        default: break
        }
        return []
    }
    let rows = state.rows
    let index = state.selection.flatMap { id in rows.firstIndex { $0.id == id } } ?? 0
    func select(_ i: Int) {
        guard !rows.isEmpty else { return }
        state.selection = rows[min(max(i, 0), rows.count - 1)].id
    }
    switch action {
    case .quit: return [.quit]
    case .toggleHelp: state.showHelp = true
    case .dismiss: break
    case .moveUp: select(index - 1)
    case .moveDown: select(index + 1)
    case .pageUp: select(index - state.treePageSize)
    case .pageDown: select(index + state.treePageSize)
    case .home: select(0)
    case .end: select(rows.count - 1)
    case .collapse:
        guard index < rows.count else { break }
        let row = rows[index]
        if row.hasChildren && !row.isCollapsed {
            state.collapsed.insert(row.id)
        } else if let parent = state.graph[row.id]?.parent {
            state.selection = parent
        }
    case .expand:
        guard index < rows.count else { break }
        let row = rows[index]
        if row.isCollapsed {
            state.collapsed.remove(row.id)
        } else if row.hasChildren {
            select(index + 1)
        }
    }
    return []
}

/// A selected stage that was pruned, or hidden inside a collapsed one, moves the
/// selection to its nearest visible ancestor (or the first row).
private func keepSelectionVisible(_ state: inout AppState) {
    guard let selection = state.selection else { return }
    var id: NodeID? = selection
    while let current = id, let node = state.graph[current] {
        var hidden = false
        var up = node.parent
        while let p = up {
            if state.collapsed.contains(p) { hidden = true; break }
            up = state.graph[p]?.parent
        }
        if !hidden {
            state.selection = current
            return
        }
        id = node.parent
    }
    state.selection = nil
}
