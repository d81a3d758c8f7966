import PipescopeGraph

/// Applies one message to the state and says what the app loop must do next.
///
/// The only place state changes. Rendering reads the state and never writes it.
public func reduce(_ state: inout AppState, _ message: Message) -> [Effect] {
    let chain = state.selectionChain
    defer {
        keepSelectionVisible(&state, chain: chain)
        keepSelectionOnScreen(&state)
    }
    switch message {
    case .action(let action):
        return apply(action, to: &state)
    case .attached(let process, let pid, let readOnly):
        state.connection = .connected
        state.pid = pid
        if state.targetName.isEmpty { state.targetName = process }
        state.readOnly = readOnly
    case .replaying(let file, let process, let pid):
        state.connection = .replay(file)
        state.pid = pid
        if state.targetName.isEmpty { state.targetName = process }
    case .snapshot(let snapshot) where snapshot.skippedEvents > 0:
        // The probe skipped us while we were slow: keep the history we have, continue
        // from its snapshot, and say so.
        state.liveGraph.load(snapshot)
        state.timeline.resync(to: state.liveGraph)
        state.skippedEvents += snapshot.skippedEvents
        state.notice = Notice(
            text: "fell behind: \(snapshot.skippedEvents) events skipped, resynchronised from a snapshot", isError: true)
        if state.cursor == nil { state.graph = state.liveGraph }
    case .snapshot(let snapshot):
        state.liveGraph.load(snapshot)
        state.timeline.reset(to: state.liveGraph)
        state.lanes = [:]
        state.cursor = nil
        state.graph = state.liveGraph
    case .batch(let batch):
        state.setGate(batch.trailer.gate)
        if !batch.trailer.gate.resumedBecause.isEmpty {
            state.notice = Notice(text: "resumed by itself: \(batch.trailer.gate.resumedBecause)", isError: true)
        }
        state.timeline.append(batch, folding: &state.liveGraph)
        if state.cursor == nil { state.graph = state.liveGraph }
        state.noteLastEvent(batch.events)
        state.recordLanes(batch.events)
        state.rate.record(batch.events.count)
    case .acknowledged(_, let ok, let text):
        state.notice = Notice(text: text, isError: !ok)
    case .disconnected(let why):
        if case .replay = state.connection { break }
        state.connection = .disconnected(why)
    case .tick(let nanos):
        state.rate.tick(nanos)
        if case .replay = state.connection {} else { state.now = nanos }
        if case .replay = state.connection {
            state.refreshLints(now: state.lastEventNanos)
        } else {
            state.refreshLints(now: nanos)
        }
        if nanos - state.lastPrune >= 1_000_000_000 {
            state.lastPrune = nanos
            state.liveGraph.prune(now: nanos, retention: state.retention)
            if state.cursor == nil { state.graph = state.liveGraph }
            state.lanes = state.lanes.filter { state.liveGraph[$0.key] != nil }
        }
    case .resize(let width, let height):
        state.width = width
        state.height = height
    }
    return []
}

private func apply(_ action: Action, to state: inout AppState) -> [Effect] {
    if state.editingFilter {
        switch action {
        case .filterType(let c): state.filter.append(c)
        case .filterBackspace: if !state.filter.isEmpty { state.filter.removeLast() }
        case .filterAccept: state.editingFilter = false
        case .dismiss:
            state.editingFilter = false
            state.filter = ""
        default: break
        }
        if let first = state.matches.first { state.selection = first }
        return []
    }
    if let preview = state.pendingCancel {
        switch action {
        case .confirm:
            state.pendingCancel = nil
            state.notice = Notice(text: "cancelling #\(preview.target)…", isError: false)
            return [.cancelNode(preview.target)]
        case .quit: return [.quit]
        default:
            state.pendingCancel = nil
            state.notice = Notice(text: "not cancelled", isError: false)
        }
        return []
    }
    if state.showLints, action == .toggleLints || action == .dismiss {
        state.showLints = false
        return []
    }
    if state.showHelp {
        switch action {
        case .quit: return [.quit]
        case .toggleHelp, .dismiss: state.showHelp = false
        default: break
        }
        return []
    }
    // In the event log and the timeline the arrows move through history.
    if state.focus == .events || state.focus == .timeline {
        switch action {
        case .moveUp where state.focus == .events, .collapse where state.focus == .timeline:
            moveCursor(&state, to: (state.cursor ?? state.timeline.end) - 1)
            return []
        case .moveDown where state.focus == .events, .expand where state.focus == .timeline:
            moveCursor(&state, to: (state.cursor ?? state.timeline.end) + 1)
            return []
        case .pageUp:
            moveCursor(&state, to: (state.cursor ?? state.timeline.end) - 50)
            return []
        case .pageDown:
            moveCursor(&state, to: (state.cursor ?? state.timeline.end) + 50)
            return []
        default: break
        }
    }
    // Reference rows point at a stage shown elsewhere; the selection skips them.
    let rows = state.rows.filter(\.isStage)
    let index = state.selection.flatMap { id in rows.firstIndex { $0.id == id } } ?? 0
    func select(_ i: Int) {
        guard !rows.isEmpty else { return }
        state.selection = rows[min(max(i, 0), rows.count - 1)].id
    }
    switch action {
    case .quit: return [.quit]
    case .choosePending:
        state.chosenPending = state.pending.isEmpty ? 0 : (state.chosenPending + 1) % state.pending.count
        return []
    case .digit(let d):
        state.countPrefix = min(state.countPrefix * 10 + d, 9_999)
        return []
    case .step where !state.filter.isEmpty && !state.paused,
         .stepMany where !state.filter.isEmpty && !state.paused:
        // With a filter and the program running, n and N move between matches.
        jumpToMatch(&state, forward: action == .step)
    case .togglePause, .step, .stepMany:
        if case .replay = state.connection, action != .togglePause {
            moveCursor(&state, to: (state.cursor ?? state.timeline.end) + (action == .step ? max(1, state.countPrefix) : 10))
            state.countPrefix = 0
            return []
        }
        return gateAction(action, &state)
    case .history(let delta):
        moveCursor(&state, to: (state.cursor ?? state.timeline.end) + delta)
    case .zoom(let factor):
        let scaled = factor > 0 ? state.timelineScale / Int64(factor) : state.timelineScale * Int64(-factor)
        state.timelineScale = min(max(scaled, 1_000_000), 60_000_000_000)
    case .fitTimeline:
        fitTimeline(&state)
    case .toggleLogFilter:
        state.logFollowsSelection.toggle()
    case .historyStart:
        moveCursor(&state, to: state.timeline.start)
    case .historyLive:
        state.cursor = nil
        state.graph = state.liveGraph
    case .focusNext: state.focus = state.focus.next
    case .focusPrevious: state.focus = state.focus.previous
    case .startFilter:
        state.editingFilter = true
    case .toggleEnded:
        state.hideEnded.toggle()
        state.notice = Notice(text: state.hideEnded ? "ended pipelines hidden (x shows them)" : "ended pipelines shown", isError: false)
    case .filterType, .filterBackspace, .filterAccept:
        break
    case .toggleHelp: state.showHelp = true
    case .toggleLints: state.showLints.toggle()
    case .dismiss:
        if state.notice == nil { state.filter = "" }
        state.notice = nil
    case .confirm: break
    case .cancelSelected:
        requestCancel(&state)
    case .toggleWatch:
        return toggleWatch(&state)
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

/// Moves the selection to the next (or previous) stage matching the filter.
private func jumpToMatch(_ state: inout AppState, forward: Bool) {
    guard !state.matches.isEmpty else {
        state.notice = Notice(text: "no stage matches \"\(state.filter)\"", isError: true)
        return
    }
    let current = state.selection.flatMap { state.matches.firstIndex(of: $0) }
    let next: Int
    if let current {
        next = (current + (forward ? 1 : state.matches.count - 1)) % state.matches.count
    } else {
        next = forward ? 0 : state.matches.count - 1
    }
    state.selection = state.matches[next]
}

/// Zooms out until every kept lane mark fits the timeline's width (about 60 columns).
private func fitTimeline(_ state: inout AppState) {
    let oldest = state.lanes.values.compactMap { $0.first?.time }.min() ?? state.timelineEnd
    let span = max(state.timelineEnd - oldest, 1_000_000)
    state.timelineScale = min(max(span / 60 + 1, 1_000_000), 60_000_000_000)
}

/// Shows the graph as it was after `position` events; at the newest event, goes live.
private func moveCursor(_ state: inout AppState, to position: Int) {
    let clamped = min(max(position, state.timeline.start), state.timeline.end)
    if clamped == state.timeline.end {
        state.cursor = nil
        state.graph = state.liveGraph
    } else {
        state.cursor = clamped
        state.graph = state.timeline.graph(at: clamped)
    }
}

/// Pause, resume and step, when the program can be changed; the count typed before
/// `n` (or ten for `N`) says how many events to release.
private func gateAction(_ action: Action, _ state: inout AppState) -> [Effect] {
    defer { state.countPrefix = 0 }
    if case .replay = state.connection {
        state.notice = Notice(text: "this is a recording: history stepping comes with the history cursor", isError: true)
        return []
    }
    guard state.connection == .connected else {
        state.notice = Notice(text: "the program is gone: nothing to pause", isError: true)
        return []
    }
    if state.readOnly {
        state.notice = Notice(text: "read-only: pausing is refused", isError: true)
        return []
    }
    switch action {
    case .togglePause:
        return [state.paused ? .resume : .pause]
    case .step:
        if state.countPrefix == 0, state.chosenPending > 0, let chosen = state.nextPending {
            state.chosenPending = 0
            return [.release(ticket: chosen.ticket)]
        }
        return [.step(max(1, state.countPrefix))]
    default:
        return [.step(state.countPrefix > 0 ? state.countPrefix : 10)]
    }
}

/// Opens the confirmation for cancelling the selected stage, or says why not.
private func toggleWatch(_ state: inout AppState) -> [Effect] {
    guard let node = state.selectedNode else { return [] }
    if case .replay = state.connection {
        state.notice = Notice(text: "this is a recording: its values were captured as it was recorded", isError: true)
        return []
    } else if case .disconnected = state.connection {
        state.notice = Notice(text: "the program is gone: nothing to watch", isError: true)
        return []
    }
    if state.watched.remove(node.id) == nil {
        state.watched.insert(node.id)
        state.notice = Notice(text: "watching #\(node.id) \(node.operatorName): every value is described, "
            + "on the program's thread (v stops)", isError: false)
    } else {
        state.notice = Notice(text: "#\(node.id) \(node.operatorName): back to sampled values", isError: false)
    }
    return [.watch(state.watched.sorted())]
}

private func requestCancel(_ state: inout AppState) {
    guard let node = state.selectedNode else { return }
    if case .replay = state.connection {
        state.notice = Notice(text: "this is a recording: it cannot be cancelled", isError: true)
    } else if case .disconnected = state.connection {
        state.notice = Notice(text: "the program is gone: nothing to cancel", isError: true)
    } else if state.readOnly {
        state.notice = Notice(text: "read-only: cancelling is refused", isError: true)
    } else if state.cursor != nil {
        state.notice = Notice(text: "you are looking at the past: press G to return to live, then cancel", isError: true)
    } else if node.status.isTerminal {
        state.notice = Notice(text: "#\(node.id) \(node.operatorName) has already \(node.status.rawValue): cancelling it has no effect", isError: true)
    } else {
        state.pendingCancel = CancelPreview(target: node.id, in: state.graph)
    }
}

/// A selected stage that was pruned, or hidden inside a collapsed one, moves the
/// selection to its nearest visible downstream stage (or, failing all, the first row).
private func keepSelectionVisible(_ state: inout AppState, chain: [NodeID]) {
    guard let current = state.selection else { return }
    for id in [current] + chain where state.graph[id] != nil && !isHidden(id, in: state) {
        state.selection = id
        return
    }
    state.selection = nil
}

private func isHidden(_ id: NodeID, in state: AppState) -> Bool {
    var up = state.graph[id]?.parent
    while let p = up {
        if state.collapsed.contains(p) { return true }
        up = state.graph[p]?.parent
    }
    return false
}

/// Scrolls the tree only as far as needed to keep the selected row visible.
private func keepSelectionOnScreen(_ state: inout AppState) {
    let rows = state.rows
    let page = max(1, state.treePageSize)
    let index = state.selection.flatMap { id in rows.firstIndex { $0.id == id && $0.isStage } } ?? 0
    if index < state.treeOffset { state.treeOffset = index }
    if index >= state.treeOffset + page { state.treeOffset = index - page + 1 }
    state.treeOffset = max(0, min(state.treeOffset, max(0, rows.count - page)))
}
