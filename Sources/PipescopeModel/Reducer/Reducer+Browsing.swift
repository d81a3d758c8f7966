import PipescopeGraph

// MARK: - Browsing: the tree and the panes have the keys

func browse(_ action: Action, _ state: inout AppState) -> [Effect] {
    if let effects = switchScreens(action, &state) { return effects }
    // In the Stage pane the arrows scroll its text.
    if state.focus == .detail, state.page == .tree {
        let page = max(1, state.geometry.detailPage)
        let delta: Int? = switch action {
        case .moveUp: -1
        case .moveDown: 1
        case .pageUp: -page
        case .pageDown: page
        case .home: Int.min / 2
        case .end: Int.max / 2
        default: nil
        }
        if let delta {
            state.detail.scroll(by: delta, page: page, current: state.tree.current)
            return []
        }
    }
    // In the event log and the timeline the arrows move through history.
    if state.focus == .events || state.focus == .timeline {
        switch action {
        case .moveUp where state.focus == .events:
            state.moveThroughRuns(by: -1)
            return []
        case .moveDown where state.focus == .events:
            state.moveThroughRuns(by: 1)
            return []
        case .collapse where state.focus == .timeline, .expand where state.focus == .timeline:
            let count = max(1, state.session.countPrefix)
            state.session.countPrefix = 0
            moveInTime(columns: action == .expand ? count : -count, &state)
            return []
        case .pageUp:
            state.moveThroughRuns(by: -50)
            return []
        case .pageDown:
            state.moveThroughRuns(by: 50)
            return []
        default: break
        }
    }
    // Reference rows point at a stage shown elsewhere, and owner headings name an owner:
    // the selection skips them. Stage rows and group rows are selectable.
    let rows = state.tree.rows.filter { $0.selection != nil }
    let current = state.tree.current
    let index = current.flatMap { selection in rows.firstIndex { $0.selection == selection } } ?? 0
    func select(_ i: Int) {
        guard !rows.isEmpty else { return }
        state.tree.selected = rows[min(max(i, 0), rows.count - 1)].selection
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
            // As live: the typed count, else one for n and ten for N.
            let typed = state.session.countPrefix
            let count = typed > 0 ? typed : action == .step ? 1 : 10
            if let stages = state.scopedStages() {
                state.moveThroughPipeline(by: count, stages: stages)
            } else {
                state.cursor.move(by: count)
            }
            state.session.countPrefix = 0
            return []
        }
        return gateAction(action, &state)
    case .history(let delta):
        state.moveThroughRuns(by: delta)
    case .save:
        if case .replay(let file) = state.session.connection {
            state.session.notice = Notice(text: "this is a recording already: \(file)", isError: false)
            return []
        }
        return [.save]
    case .waitForRestart:
        return waitForRestart(&state)
    case .zoom(let factor):
        state.timeline.zoom(factor, anchor: state.cursorMoment)
    case .fitTimeline:
        let log = state.cursor.log
        state.timeline.fit(endingAt: state.timelineEnd, oldest: log.event(at: log.start + 1)?.time,
                           width: state.timelineWidth)
    case .toggleLogFilter:
        state.nextLogScope()
    case .historyStart:
        state.moveToRunStart()
    case .historyLive:
        state.returnToLive()
    case .focusNext, .focusPrevious:
        state.focus = state.focus.step(action == .focusNext ? 1 : -1, among: state.panesShown)
        if state.focus == .detail, state.geometry.timelineWidth == 0 {
            state.session.notice = Notice(
                text: "the timeline and the event log need 120x30: T shows them full screen",
                isError: false)
        }
    case .startFilter:
        state.layer = .filtering
    case .toggleEnded:
        state.tree.hideEnded.toggle()
        // Laid out now whichever screen is shown: the notice counts what the tree hides.
        state.tree.refresh(from: state.cursor, waits: state.warnings.waits)
        let hidden = state.tree.hiddenEnded
        state.session.notice = Notice(
            text: state.tree.hideEnded
                ? "\(hidden) ended stage\(hidden == 1 ? "" : "s") hidden: whole pipelines and ended inner stages (x shows them)"
                : "ended stages shown", isError: false)
    case .filterType, .filterBackspace, .filterAccept, .toggleTable, .toggleTimeline, .openPipeline, .sortNext, .sortPrevious,
         .invertSort, .toggleFolding:
        break
    case .toggleHelp:
        state.layer = .help(Overlay())
    case .toggleLints: state.layer = .warnings(Overlay())
    case .explain: state.layer = .explaining(Explanation.of(state))
    case .dismiss:
        // (A message on screen was cleared by this Esc already: see `reduce`.)
        state.tree.filter = ""
    case .confirm: break
    case .cancelSelected:
        guard state.tree.selectedGroup == nil, let node = state.selectedNode else {
            requestCancel(&state, of: nil)
            break
        }
        requestCancel(&state, of: node.id)
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
        collapse(rows[index], &state)
    case .expand:
        guard index < rows.count else { break }
        let row = rows[index]
        if row.isCollapsed, let group = row.group {
            state.tree.expandedGroups.insert(group.id)
        } else if row.isCollapsed {
            state.tree.collapsed.remove(row.id)
        } else if row.hasChildren {
            select(index + 1)
        }
    }
    return []
}

/// `←`: closes an open group or folds a stage's upstream; on a row with nothing to close,
/// goes to the row it hangs from: the open group it is a member of, or its downstream.
private func collapse(_ row: TreeRow, _ state: inout AppState) {
    if let group = row.group {
        if !row.isCollapsed {
            state.tree.expandedGroups.remove(group.id)
        } else if let parent = group.id.parent {
            state.tree.selection = parent
        }
        return
    }
    if row.hasChildren && !row.isCollapsed {
        state.tree.collapsed.insert(row.id)
        return
    }
    // A member of an open group hangs from the group's row, which sits between it and
    // its downstream stage.
    let rows = state.tree.rows
    if let at = state.tree.index(of: .stage(row.id)),
       let above = rows[..<at].lastIndex(where: { $0.depth < row.depth }), let group = rows[above].group,
       group.members.contains(row.id) {
        state.tree.selected = .group(group.id)
    } else if let parent = state.cursor.graph[row.id]?.parent {
        state.tree.selection = parent
    }
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
        let what = action == .togglePause ? (session.paused ? "resuming" : "pausing") : "stepping"
        state.session.notice = Notice(text: "read-only: \(what) is refused (this inspector only looks)", isError: true)
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

/// `r`: after the program ended, waits for a program of its name to start and attaches
/// to that new run (the ended run stays, as its own section of history).
private func waitForRestart(_ state: inout AppState) -> [Effect] {
    let name = state.session.targetName
    if state.session.isReplay {
        state.session.notice = Notice(text: "this is a recording: there is no program to wait for", isError: true)
        return []
    }
    guard state.session.hasEnded else {
        state.session.notice = Notice(text: "\(name) is running: r waits for it to start again once it has ended",
                                      isError: true)
        return []
    }
    state.session.waitingFor = name
    state.session.notice = Notice(text: "waiting for \(name) to start again; this run stays in history", isError: false)
    return [.waitForRestart(name)]
}

/// Why `v` does nothing read-only: describing every value runs `description` on the
/// program's thread for each one.
let readOnlyWatchRefusal = "read-only: watching is refused (describing every value changes what the program pays "
    + "per value); values stay sampled"

/// Watches the selected stage (every value described), or stops; or says why not.
private func toggleWatch(_ state: inout AppState) -> [Effect] {
    if let group = state.tree.selectedGroup {
        state.session.notice = Notice(text: "\(label(group, in: state.cursor.graph)) is a group of ended stages: "
            + "nothing to watch (→ opens it)", isError: true)
        return []
    }
    guard let node = state.selectedNode else { return [] }
    if case .replay = state.session.connection {
        state.session.notice = Notice(text: "this is a recording: its values were captured as it was recorded", isError: true)
        return []
    } else if case .disconnected = state.session.connection {
        state.session.notice = Notice(text: "the program is gone: nothing to watch", isError: true)
        return []
    } else if state.session.readOnly, !state.session.watched.contains(node.id) {
        // Describing every value runs `description` on the program's thread for each one.
        state.session.notice = Notice(text: readOnlyWatchRefusal, isError: true)
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

/// Opens the confirmation for cancelling stage `id` (the tree's selected stage, or a
/// table row's root), or says why not.
func requestCancel(_ state: inout AppState, of id: NodeID?) {
    // A group row stands for stages that are not on screen: cancel acts on one stage the
    // user can see, never on hidden ones. (Every member has ended anyway.)
    if state.page.showsStages, let group = state.tree.selectedGroup {
        state.session.notice = Notice(text: "\(label(group, in: state.cursor.graph)) is a group of ended stages: "
            + "nothing to cancel (→ opens it)", isError: true)
        return
    }
    guard let id, let node = state.cursor.graph[id] else { return }
    if case .replay = state.session.connection {
        state.session.notice = Notice(text: "this is a recording: it cannot be cancelled", isError: true)
    } else if case .disconnected = state.session.connection {
        state.session.notice = Notice(text: "the program is gone: nothing to cancel", isError: true)
    } else if state.session.readOnly {
        state.session.notice = Notice(text: "read-only: cancelling is refused (this inspector only looks)", isError: true)
    } else if state.cursor.position != nil {
        state.session.notice = Notice(text: "you are looking at the past: press G to return to live, then cancel", isError: true)
    } else if node.status.isTerminal {
        state.session.notice = Notice(text: "#\(node.id) \(node.operatorName) has already \(node.status.rawValue): cancelling it has no effect", isError: true)
    } else if let preview = CancelPreview(target: node.id, in: state.cursor.graph) {
        state.layer = .confirmingCancel(preview)
    }
}

/// A group as its row names it: "Future ×18", "owner ProfileScreen ×5".
func label(_ group: StageGroup, in graph: Graph) -> String {
    if group.id.key.isOwner { return "owner \(group.owner?.name ?? "?") ×\(group.count)" }
    return "\(graph[group.newest]?.operatorName ?? "?") ×\(group.count)"
}

/// `←` `→` in the timeline: the cursor moves `columns` columns of time from its moment
/// (now, while live) and lands on the nearest event that way, at least one event on;
/// past the newest it is live again.
private func moveInTime(columns: Int, _ state: inout AppState) {
    let log = state.cursor.log
    let here = state.cursor.position ?? log.end
    let target = state.timelineEnd + Int64(columns) * state.timeline.scale
    var to = columns < 0 ? min(log.position(atOrBefore: target), here - 1)
        : max(log.position(atOrAfter: target), here + 1)
    if let stages = state.scopedStages() {
        // One pipeline shown: the nearest of its events that way.
        let step = columns < 0 ? -1 : 1
        guard let near = state.position(from: to - step, by: step, among: stages) else {
            state.moveThroughPipeline(by: step, stages: stages)
            return
        }
        to = near
    }
    state.cursor.move(to: to)
}
