import PipescopeGraph

/// Applies one message to the state and says what the app loop must do next.
///
/// The only place state changes. Rendering reads the state and never writes it. Keys
/// go to the layer that has the keyboard (``AppState/layer``) and to no other; see
/// `Reducer+Keys.swift`.
public func reduce(_ state: inout AppState, _ message: Message) -> [Effect] {
    state.refreshRows()
    let before = SelectionKeeper(state)
    defer {
        state.refreshRows()
        before.keepSelectionVisible(&state)
        state.tree.keepSelectionOnScreen()
        state.keepCursorInTimeline()
        // The table follows batches at the next tick (a few a second, like top's
        // refresh), not on each of them: a rebuild walks every pipeline and sorts.
        if case .batch = message {} else { state.refreshTable() }
    }
    switch message {
    case .action(let action):
        // A message is transient: it gives way to the next key, whose own line (the
        // history's, the gate's, the keys') or own message then shows. Esc with a message
        // on screen only clears it.
        let shown = state.session.notice
        state.session.notice = nil
        if shown != nil, action == .dismiss, state.layer == .browsing { return [] }
        return apply(action, to: &state)
    case .attached(let process, let pid, let readOnly):
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
        state.cursor.load(snapshot, keepingHistory: true)
        let live = state.cursor.liveGraph
        state.table.activity.keep(live)
        state.session.skippedEvents += snapshot.skippedEvents
        state.session.notice = Notice(
            text: "fell behind: \(snapshot.skippedEvents) events skipped, resynchronised from a snapshot", isError: true)
    case .snapshot(let snapshot):
        state.cursor.load(snapshot, keepingHistory: false)
        state.table.activity = PipelineActivity()
        state.timeline.lanes = [:]
    case .batch(let batch):
        state.session.setGate(batch.trailer.gate)
        if !batch.trailer.gate.resumedBecause.isEmpty {
            state.session.notice = Notice(text: "resumed by itself: \(batch.trailer.gate.resumedBecause)", isError: true)
        }
        state.cursor.append(batch)
        state.cursor.noteLastEvent(batch.events)
        state.timeline.recordLanes(batch.events, liveGraph: state.cursor.liveGraph)
        state.timeline.follow(state.cursor.log)
        state.session.rate.record(batch.events.count)
        let live = state.cursor.liveGraph
        state.table.activity.record(batch.events, in: live)
    case .acknowledged(_, let ok, let text):
        state.session.notice = Notice(text: text, isError: !ok)
    case .disconnected(let why):
        if state.session.isReplay { break }
        state.session.connection = .disconnected(why)
    case .tick(let nanos):
        state.session.rate.tick(nanos)
        // Only the pipelines the events since the last tick touched, and those time
        // alone changes, are linted again (``AppState/Warnings``).
        let changes = state.cursor.takeChanges(for: .warnings)
        if state.session.isReplay {
            state.warnings.refresh(state.cursor.graph, now: state.cursor.lastEventNanos, changes: changes)
        } else {
            state.timeline.now = nanos
            state.warnings.refresh(state.cursor.graph, now: nanos, changes: changes)
        }
        state.table.noteLintsChanged(state.warnings.changed)
        if nanos - state.cursor.lastPrune >= 1_000_000_000 {
            state.cursor.lastPrune = nanos
            // Only the stages that ended are looked at; lanes and counts are forgotten
            // only when stages went.
            if state.cursor.prune(now: nanos, retention: state.retention) {
                state.timeline.keepLanes(of: state.cursor.liveGraph)
                let live = state.cursor.liveGraph
                state.table.activity.keep(live)
            }
        }
    case .resize(let geometry):
        state.geometry = geometry
        state.tree.pageSize = geometry.treePage
        state.table.pageSize = geometry.tablePage
        state.table.width = geometry.tableWidth
    }
    return []
}
