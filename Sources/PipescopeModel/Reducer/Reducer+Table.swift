import PipescopeGraph

// MARK: - Switching screens, and the table's own keys

/// The keys that act on the pipelines table or switch screens; nil for any other action,
/// which the browsing keys then handle as on the tree.
///
/// | key        | on the table                                   | on the tree                          |
/// |------------|------------------------------------------------|--------------------------------------|
/// | `t`        | the whole tree, on the pipeline's root         | the table, on the stage's pipeline   |
/// | Enter      | the tree of the selected pipeline only         | the tree of the stage's pipeline only |
/// | Esc        | (a message is cleared first, by `reduce`)      | (one pipeline shown) back to the table |
/// | `<` `>` `i` | sort by the previous / next column shown, invert | says they sort the table           |
/// | `c`        | cancel the pipeline's root stage (confirmed)   | cancel the stage (confirmed)         |
/// | `→` `←`    | open / close a folded row (`×N`, ``PlaceFolds``) | unfold / fold, open / close a group |
/// | `F`        | fold pipelines from one place, or show each    | says it is the table's               |
///
/// On a folded row Enter, `t` and `e` act on the pipeline the `pile-up` lint is on (its
/// oldest live one), and `c` cancels nothing: it says to open the row and pick one.
func switchScreens(_ action: Action, _ state: inout AppState) -> [Effect]? {
    switch (state.page, action) {
    case (.timeline, .toggleTimeline), (.timeline, .toggleTable):
        state.page = .tree
        state.focus = .tree
    case (.timeline, .dismiss) where state.tree.filter.isEmpty:
        state.page = .tree
        state.focus = .tree
    case (_, .toggleTimeline):
        if state.page == .table { showTree(of: state.table.selected, scoped: false, &state) }
        state.page = .timeline
        state.focus = .timeline  // ← → move the time cursor, ↑ ↓ the selection
    case (.timeline, .focusNext), (.timeline, .focusPrevious):
        state.focus = state.focus == .events ? .timeline : .events
    case (.timeline, .openPipeline):
        guard let stage = selectedStage(state), let root = state.pipeline(of: stage) else { return [] }
        state.tree.scope = root
    case (.timeline, .sortNext), (.timeline, .sortPrevious), (.timeline, .invertSort):
        state.session.notice = Notice(text: "sorting is for the pipelines table: t shows it", isError: false)
    case (.table, .toggleTable):
        showTree(of: state.table.selected, scoped: false, &state)
    case (.table, .openPipeline):
        guard let root = state.table.selected else { return [] }
        let fold = state.table.selectedRow?.fold
        showTree(of: root, scoped: true, &state)
        if let fold {
            // Short enough for 80 columns: the title names the pipeline and the tree its place.
            state.session.notice = Notice(
                text: "#\(root): the oldest live of the row's \(fold.count) pipelines (→ on the table lists them)",
                isError: false)
        }
    case (.tree, .toggleTable):
        showTable(&state)
    case (.tree, .openPipeline):
        guard let stage = selectedStage(state), let root = state.pipeline(of: stage) else { return [] }
        state.tree.scope = root
    case (.tree, .dismiss) where state.tree.scope != nil && state.tree.filter.isEmpty:
        showTable(&state)
    case (.tree, .sortNext), (.tree, .sortPrevious), (.tree, .invertSort):
        state.session.notice = Notice(text: "sorting is for the pipelines table: t shows it", isError: false)
    case (.tree, .toggleFolding), (.timeline, .toggleFolding):
        state.session.notice = Notice(text: "F folds the pipelines table's rows: t shows it (the tree's groups open with →)",
                                      isError: false)
    case (.table, _):
        return browseTable(action, &state)
    default:
        return nil
    }
    return []
}

/// The table's keys: moving, sorting, cancelling a pipeline; nil for the keys that act
/// the same on both screens (pause, step, history, help, quit, …).
private func browseTable(_ action: Action, _ state: inout AppState) -> [Effect]? {
    let at = state.table.currentIndex ?? 0
    switch action {
    case .moveUp: state.table.select(row: at - 1)
    case .moveDown: state.table.select(row: at + 1)
    case .pageUp: state.table.select(row: at - state.table.pageSize)
    case .pageDown: state.table.select(row: at + state.table.pageSize)
    case .home: state.table.select(row: 0)
    case .end: state.table.select(row: state.table.rows.count - 1)
    case .sortNext: state.table.sort = state.table.sortColumn(+1)
    case .sortPrevious: state.table.sort = state.table.sortColumn(-1)
    case .invertSort: state.table.descending.toggle()
    case .cancelSelected:
        guard let root = state.table.selected else { return [] }
        if let fold = state.table.selectedRow?.fold {
            // One arbitrary member would be the wrong one as often as not, and all of them
            // at once is rarely what a person debugging one screen means: pick one. (Short
            // enough for 80 columns.)
            state.session.notice = Notice(
                text: "this row is \(fold.count) pipelines: → lists them, then c cancels one (nothing cancelled)",
                isError: false)
            return []
        }
        requestCancel(&state, of: root)
    case .startFilter:
        // The filter searches stages: it works on the whole tree.
        showTree(of: state.table.selected, scoped: false, &state)
        state.layer = .filtering
    case .toggleWatch where state.session.readOnly:
        state.session.notice = Notice(text: readOnlyWatchRefusal, isError: true)
    case .toggleWatch:
        state.session.notice = Notice(text: "watch a stage in the pipeline's tree: Enter opens it, then v", isError: false)
    case .explain where state.cursor.position == nil:
        // What the pipeline's sink got last: its root's last value.
        guard let root = state.table.selected else { return nil }
        state.layer = .explaining(Explanation.of(state, stage: root))
    case .expand:
        guard let row = state.table.selectedRow, row.fold != nil, let place = row.place else { return [] }
        // Open, or (already open) on to its first member, as `→` goes upstream in the tree.
        if state.table.openPlaces.contains(place) {
            state.table.select(row: at + 1)
        } else {
            state.table.openPlaces.insert(place)
        }
    case .collapse:
        guard let row = state.table.selectedRow, row.fold != nil || row.isMember, let place = row.place,
              state.table.openPlaces.contains(place) else { return [] }
        state.table.select(.place(place))
        state.table.openPlaces.remove(place)
    case .toggleFolding:
        state.table.folding.toggle()
        state.session.notice = Notice(
            text: state.table.folding ? "pipelines from one place share a row (×N, → opens it): F shows each"
                : "each pipeline on its own row: F folds those from one place (×N)", isError: false)
    case .focusNext, .focusPrevious, .toggleLogFilter:
        break
    default:
        return nil
    }
    return []
}

/// Shows the tree (all pipelines, or only `root`'s) with `root` selected.
private func showTree(of root: NodeID?, scoped: Bool, _ state: inout AppState) {
    state.page = .tree
    state.focus = .tree
    state.tree.scope = scoped ? root : nil
    if let root { state.tree.selection = root }
    state.refreshRows()
    state.tree.offset = 0
}

/// Shows the table with the pipeline of the tree's selected stage selected.
private func showTable(_ state: inout AppState) {
    let stage = selectedStage(state)
    state.page = .table
    state.tree.scope = nil
    state.refreshTable()
    if let stage, let root = state.pipeline(of: stage) { state.table.select(pipeline: root) }
}

/// The tree's selected stage, or a selected group's newest member.
private func selectedStage(_ state: AppState) -> NodeID? {
    switch state.tree.current {
    case .stage(let id)?: return id
    case .group?: return state.tree.selectedGroup?.newest
    case nil: return nil
    }
}
