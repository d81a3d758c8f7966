import PipescopeGraph

/// Applies one message to the state and says what the app loop must do next.
///
/// The only place state changes. Rendering reads the state and never writes it. Keys
/// go to the layer that has the keyboard (``AppState/layer``) and to no other; see
/// `Reducer+Keys.swift`.
public func reduce(_ state: inout AppState, _ message: Message) -> [Effect] {
    state.refreshRows()
    let before = SelectionKeeper(state)
    let tableView = state.tableView
    defer {
        state.refreshRows()
        before.keepSelectionVisible(&state)
        state.tree.keepSelectionOnScreen()
        state.settleRun()
        state.keepCursorInTimeline()
        // The table follows batches at the next tick (a few a second, like top's
        // refresh), not on each of them: a rebuild walks every pipeline and sorts. So
        // does a key that changes nothing the table is made from: it acts on the rows on
        // screen and is answered at once (at 10,000 pipelines a rebuild is most of a
        // frame).
        switch message {
        case .batch, .detailLines, .warningsShown: break
        case .action where state.tableView == tableView: state.keepTableAsBuilt()
        default: state.refreshTable()
        }
    }
    switch message {
    case .action(let action):
        // A message is transient: it gives way to the next key, whose own line (the
        // history's, the gate's, the keys') or own message then shows. Esc with a message
        // on screen only clears it.
        let shown = state.session.notice
        state.session.notice = nil
        if shown != nil, action == .dismiss, state.layer == .browsing { return [] }
        let moment = (state.cursor.position, state.runs.viewing)
        let effects = apply(action, to: &state)
        // A key that moved the cursor shows another moment: its lints and waits are that
        // moment's at once, not the last tick's (judged at another time, on another graph).
        if moment != (state.cursor.position, state.runs.viewing) { state.refreshWarnings() }
        return effects
    case .attached(let process, let pid, let readOnly):
        if state.session.hasEnded {
            // The same process again (the probe dropped this inspector): the same run.
            // Another one: the program started again, and the run that ended is kept.
            if pid == state.session.pid {
                state.session.reattachedSameRun = true
            } else {
                state.startNewRun()
                state.session.targetName = process
                state.session.historyOrigin = .attach
            }
            state.session.endedAt = nil
            state.session.endReason = nil
        }
        state.session.connection = .connected
        state.session.pid = pid
        if state.session.targetName.isEmpty { state.session.targetName = process }
        state.session.readOnly = readOnly
    case .replaying(let file, let process, let pid):
        state.session.connection = .replay(file)
        state.session.pid = pid
        if state.session.targetName.isEmpty { state.session.targetName = process }
    case .snapshot(let snapshot) where snapshot.skippedEvents > 0:
        // The probe skipped us while we were slow: keep the history we have, continue
        // from its snapshot, and say so.
        state.showRun(nil)
        state.cursor.load(snapshot, keepingHistory: true)
        let live = state.cursor.liveGraph
        state.table.activity.keep(live)
        state.timeline.resyncDemand(with: live)
        state.session.skippedEvents += snapshot.skippedEvents
        state.session.notice = Notice(
            text: "fell behind: \(snapshot.skippedEvents) events skipped, resynchronised from a snapshot", isError: true)
    case .snapshot(let snapshot) where state.session.reattachedSameRun:
        // Back to the same process: its history goes on from the snapshot.
        state.session.reattachedSameRun = false
        state.showRun(nil)
        state.cursor.load(snapshot, keepingHistory: true)
        state.table.activity.keep(state.cursor.liveGraph)
        state.timeline.resyncDemand(with: state.cursor.liveGraph)
    case .snapshot(let snapshot):
        state.showRun(nil)
        state.cursor.load(snapshot, keepingHistory: false)
        state.drops.removeAll()
        state.table.activity = PipelineActivity()
        state.timeline.lanes = [:]
        state.timeline.resyncDemand(with: state.cursor.liveGraph)
    case .batch(let batch):
        state.session.setGate(batch.trailer.gate)
        if !batch.trailer.gate.resumedBecause.isEmpty {
            state.session.notice = Notice(text: "resumed by itself: \(batch.trailer.gate.resumedBecause)", isError: true)
        }
        state.appendToLiveRun(batch)
        state.drops.record(batch)
        state.session.rate.record(batch.events.count)
    case .acknowledged(_, let ok, let text):
        state.session.notice = Notice(text: text, isError: !ok)
    case .notice(let notice):
        state.session.notice = notice
    case .historyOrigin(let origin):
        state.session.historyOrigin = origin
    case .disconnected(let why):
        if state.session.isReplay { break }
        state.session.connection = .disconnected(why)
        if state.session.endedAt == nil {
            // Time stops here: the last tick's clock (the program may have been quiet).
            state.session.endedAt = max(state.timeline.now, state.cursor.lastEventNanos)
            state.session.endReason = why
        }
    case .following(let following):
        state.session.following = following
    case .reading(let bytes, let total):
        state.session.reading = bytes < total ? (bytes, total) : nil
        // A replay reads hundreds of thousands of events between two ticks: stages that
        // ended are pruned after every slice (by the last tick's clock), not once a
        // second, or every history checkpoint taken meanwhile would keep them all.
        if state.session.isReplay, state.runs.viewing == nil, state.cursor.lastPrune > 0 {
            pruneLiveRun(&state, now: state.cursor.lastPrune)
        }
    case .tick(let nanos):
        state.session.rate.tick(nanos)
        // An ended run's time stands still where it ended: its lanes do not scroll away,
        // a stage is not "stalled" for longer than the program lived, and what ended
        // just before is not pruned as time goes by.
        // A recording's time is its own: it stands at its last event, whenever it is
        // replayed (the wall clock would prune what ended and stall what waited, the
        // longer ago it was recorded).
        let now = state.session.isReplay ? state.cursor.lastEventNanos
            : state.runs.viewing.map { state.runs.earlier[$0].endedAt ?? 0 } ?? state.session.endedAt ?? nanos
        if !state.session.isReplay { state.timeline.now = now }
        // Judged at the moment on screen: the cursor's in the past, `now` while live. Only
        // the pipelines the events since the last tick touched, and those time alone
        // changes, are linted again (``AppState/Warnings``).
        state.refreshWarnings()
        if state.runs.viewing == nil, now - state.cursor.lastPrune >= 1_000_000_000 {
            state.cursor.lastPrune = now
            pruneLiveRun(&state, now: now)
        }
    case .resize(let geometry):
        state.geometry = geometry
        // A pane the smaller layout no longer shows gives the focus back to the tree (the
        // timeline screen has its own two panes).
        if state.page != .timeline, !state.panesShown.contains(state.focus) { state.focus = .tree }
        state.tree.pageSize = geometry.treePage
        state.table.pageSize = geometry.tablePage
        state.table.width = geometry.tableWidth
    case .detailLines(let count):
        state.detail.lines = count
    case .warningsShown(let rows):
        if case .warnings(var overlay) = state.layer {
            overlay.rowsShown = rows
            state.layer = .warnings(overlay)
        }
    }
    return []
}

/// Prunes the live run's ended stages as of `now`. Only the stages that ended are looked
/// at; lanes and counts are forgotten only when stages went.
private func pruneLiveRun(_ state: inout AppState, now: Int64) {
    if state.cursor.prune(now: now, retention: state.retention) {
        state.timeline.keepLanes(of: state.cursor.liveGraph)
        let live = state.cursor.liveGraph
        state.table.activity.keep(live)
    }
}
