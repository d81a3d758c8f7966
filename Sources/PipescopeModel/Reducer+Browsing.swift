import PipescopeGraph

// MARK: - Browsing: the tree and the panes have the keys

func browse(_ action: Action, _ state: inout AppState) -> [Effect] {
    // In the event log and the timeline the arrows move through history.
    if state.focus == .events || state.focus == .timeline {
        switch action {
        case .moveUp where state.focus == .events, .collapse where state.focus == .timeline:
            state.history.move(by: -1)
            return []
        case .moveDown where state.focus == .events, .expand where state.focus == .timeline:
            state.history.move(by: 1)
            return []
        case .pageUp:
            state.history.move(by: -50)
            return []
        case .pageDown:
            state.history.move(by: 50)
            return []
        default: break
        }
    }
    // Reference rows point at a stage shown elsewhere; the selection skips them.
    let rows = state.tree.rows.filter(\.isStage)
    let index = state.tree.selection.flatMap { id in rows.firstIndex { $0.id == id } } ?? 0
    func select(_ i: Int) {
        guard !rows.isEmpty else { return }
        state.tree.selection = rows[min(max(i, 0), rows.count - 1)].id
    }
    switch action {
    case .quit: return [.quit]
    case .choosePending:
        let count = state.session.pending.count
        state.session.chosenPending = count == 0 ? 0 : (state.session.chosenPending + 1) % count
        return []
    case .digit(let d):
        state.session.countPrefix = min(state.session.countPrefix * 10 + d, 9_999)
        return []
    case .step where !state.tree.filter.isEmpty && !state.session.paused,
         .stepMany where !state.tree.filter.isEmpty && !state.session.paused:
        // With a filter and the program running, n and N move between matches.
        jumpToMatch(&state, forward: action == .step)
    case .togglePause, .step, .stepMany:
        if state.session.isReplay, action != .togglePause {
            state.history.move(by: action == .step ? max(1, state.session.countPrefix) : 10)
            state.session.countPrefix = 0
            return []
        }
        return gateAction(action, &state)
    case .history(let delta):
        state.history.move(by: delta)
    case .zoom(let factor):
        state.timeline.zoom(factor)
    case .fitTimeline:
        state.timeline.fit(endingAt: state.timelineEnd)
    case .toggleLogFilter:
        state.timeline.logFollowsSelection.toggle()
    case .historyStart:
        state.history.move(to: state.history.log.start)
    case .historyLive:
        state.history.goLive()
    case .focusNext: state.focus = state.focus.next
    case .focusPrevious: state.focus = state.focus.previous
    case .startFilter:
        state.mode = .filtering
    case .toggleEnded:
        state.tree.hideEnded.toggle()
        state.session.notice = Notice(
            text: state.tree.hideEnded ? "ended pipelines hidden (x shows them)" : "ended pipelines shown", isError: false)
    case .filterType, .filterBackspace, .filterAccept:
        break
    case .toggleHelp: state.mode = .help
    case .toggleLints: state.mode = .warnings
    case .dismiss:
        if state.session.notice == nil { state.tree.filter = "" }
        state.session.notice = nil
    case .confirm: break
    case .cancelSelected:
        requestCancel(&state)
    case .toggleWatch:
        return toggleWatch(&state)
    case .moveUp: select(index - 1)
    case .moveDown: select(index + 1)
    case .pageUp: select(index - state.tree.pageSize)
    case .pageDown: select(index + state.tree.pageSize)
    case .home: select(0)
    case .end: select(rows.count - 1)
    case .collapse:
        guard index < rows.count else { break }
        let row = rows[index]
        if row.hasChildren && !row.isCollapsed {
            state.tree.collapsed.insert(row.id)
        } else if let parent = state.history.graph[row.id]?.parent {
            state.tree.selection = parent
        }
    case .expand:
        guard index < rows.count else { break }
        let row = rows[index]
        if row.isCollapsed {
            state.tree.collapsed.remove(row.id)
        } else if row.hasChildren {
            select(index + 1)
        }
    }
    return []
}

/// Moves the selection to the next (or previous) stage matching the filter.
private func jumpToMatch(_ state: inout AppState, forward: Bool) {
    let matches = state.tree.matches
    guard !matches.isEmpty else {
        state.session.notice = Notice(text: "no stage matches \"\(state.tree.filter)\"", isError: true)
        return
    }
    let current = state.tree.selection.flatMap { matches.firstIndex(of: $0) }
    let next: Int
    if let current {
        next = (current + (forward ? 1 : matches.count - 1)) % matches.count
    } else {
        next = forward ? 0 : matches.count - 1
    }
    state.tree.selection = matches[next]
}

/// Pause, resume and step, when the program can be changed; the count typed before
/// `n` (or ten for `N`) says how many events to release.
private func gateAction(_ action: Action, _ state: inout AppState) -> [Effect] {
    defer { state.session.countPrefix = 0 }
    let session = state.session
    if session.isReplay {
        state.session.notice = Notice(text: "this is a recording: history stepping comes with the history cursor", isError: true)
        return []
    }
    guard session.connection == .connected else {
        state.session.notice = Notice(text: "the program is gone: nothing to pause", isError: true)
        return []
    }
    if session.readOnly {
        state.session.notice = Notice(text: "read-only: pausing is refused", isError: true)
        return []
    }
    switch action {
    case .togglePause:
        return [session.paused ? .resume : .pause]
    case .step:
        if session.countPrefix == 0, session.chosenPending > 0, let chosen = session.nextPending {
            state.session.chosenPending = 0
            return [.release(ticket: chosen.ticket)]
        }
        return [.step(max(1, session.countPrefix))]
    default:
        return [.step(session.countPrefix > 0 ? session.countPrefix : 10)]
    }
}

/// Watches the selected stage (every value described), or stops; or says why not.
private func toggleWatch(_ state: inout AppState) -> [Effect] {
    guard let node = state.selectedNode else { return [] }
    if case .replay = state.session.connection {
        state.session.notice = Notice(text: "this is a recording: its values were captured as it was recorded", isError: true)
        return []
    } else if case .disconnected = state.session.connection {
        state.session.notice = Notice(text: "the program is gone: nothing to watch", isError: true)
        return []
    }
    if state.session.watched.remove(node.id) == nil {
        state.session.watched.insert(node.id)
        state.session.notice = Notice(text: "watching #\(node.id) \(node.operatorName): every value is described, "
            + "on the program's thread (v stops)", isError: false)
    } else {
        state.session.notice = Notice(text: "#\(node.id) \(node.operatorName): back to sampled values", isError: false)
    }
    return [.watch(state.session.watched.sorted())]
}

/// Opens the confirmation for cancelling the selected stage, or says why not.
private func requestCancel(_ state: inout AppState) {
    guard let node = state.selectedNode else { return }
    if case .replay = state.session.connection {
        state.session.notice = Notice(text: "this is a recording: it cannot be cancelled", isError: true)
    } else if case .disconnected = state.session.connection {
        state.session.notice = Notice(text: "the program is gone: nothing to cancel", isError: true)
    } else if state.session.readOnly {
        state.session.notice = Notice(text: "read-only: cancelling is refused", isError: true)
    } else if state.history.cursor != nil {
        state.session.notice = Notice(text: "you are looking at the past: press G to return to live, then cancel", isError: true)
    } else if node.status.isTerminal {
        state.session.notice = Notice(text: "#\(node.id) \(node.operatorName) has already \(node.status.rawValue): cancelling it has no effect", isError: true)
    } else if let preview = CancelPreview(target: node.id, in: state.history.graph) {
        state.mode = .confirmingCancel(preview)
    }
}
