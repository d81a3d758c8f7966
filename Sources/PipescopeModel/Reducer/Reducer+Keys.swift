import PipescopeGraph

// MARK: - Keys, by layer

/// A key, acted on by the layer that has the keyboard and by no other.
///
/// | layer            | acts on                                                   | any other action            |
/// |------------------|-----------------------------------------------------------|-----------------------------|
/// | browsing         | every action                                              | —                           |
/// | filtering        | `filterType`, `filterBackspace`, `filterAccept`; `dismiss` clears | ignored             |
/// | help             | `toggleHelp`, `dismiss` close; `toggleLints` switches; `quit`; the arrows and pages scroll | ignored, kept in the overlay's `ignoredKey` |
/// | warnings         | `toggleLints`, `dismiss` close; `toggleHelp` switches; `quit`; the arrows and pages scroll its rows | ignored, kept in the overlay's `ignoredKey` |
/// | confirmingCancel | `confirm` sends the cancel; `quit`                        | keeps the stage, says so    |
/// | explaining       | `explain`, `dismiss` close; `quit`; the arrows and pages scroll | ignored, kept in the overlay's `ignoredKey` |
func apply(_ action: Action, to state: inout AppState) -> [Effect] {
    switch state.layer {
    case .browsing:
        return browse(action, &state)
    case .filtering:
        editFilter(action, &state)
        return []
    case .help(let overlay):
        return readOverlay(action, overlay, help: true, &state)
    case .warnings(let overlay):
        return readOverlay(action, overlay, help: false, &state)
    case .confirmingCancel(let preview):
        return confirmCancel(preview, action, &state)
    case .explaining(let explanation):
        return readExplanation(action, explanation, &state)
    }
}

/// The explanation covers the middle of the screen and keeps the keys: `e` or Esc
/// closes it, `q` quits, the arrows and pages scroll (the view stops at its last line),
/// any other key does nothing (the hint bar says so).
private func readExplanation(_ action: Action, _ open: Explanation, _ state: inout AppState) -> [Effect] {
    var explanation = open
    explanation.overlay.ignoredKey = nil
    let page = Explanation.visibleLines(height: state.geometry.height)
    let width = Explanation.boxWidth(bodyWidth: state.geometry.width) - 3
    let last = max(0, explanation.lines(width: width).count - page)
    func scroll(by delta: Int) { explanation.overlay.offset = min(max(0, explanation.overlay.offset + delta), last) }
    switch action {
    case .quit: return [.quit]
    case .dismiss, .explain:
        state.layer = .browsing
        return []
    case .moveUp: scroll(by: -1)
    case .moveDown: scroll(by: 1)
    case .pageUp: scroll(by: -page)
    case .pageDown: scroll(by: page)
    case .home: explanation.overlay.offset = 0
    default: explanation.overlay.ignoredKey = action
    }
    state.layer = .explaining(explanation)
    return []
}

/// Typing the filter: the tree filters as you type, and the first match is selected.
private func editFilter(_ action: Action, _ state: inout AppState) {
    switch action {
    case .filterType(let c): state.tree.filter.append(c)
    case .filterBackspace: if !state.tree.filter.isEmpty { state.tree.filter.removeLast() }
    case .filterAccept: state.layer = .browsing
    case .dismiss:
        state.layer = .browsing
        state.tree.filter = ""
    default: break
    }
    state.refreshRows()
    if let first = state.tree.matches.first { state.tree.selection = first }
}

/// Help and warnings cover the middle of the screen, so they keep the keys: their own
/// key or Esc closes them, the other's key switches to it, `q` quits, and any other key
/// does nothing (the hint bar names it and says how to close). The help scrolls by the
/// page the layout gives it (``Geometry/helpPage``); the warnings by row (a mistake and
/// its advice, two to ten lines), a page being the rows the view showed whole
/// (``Overlay/rowsShown``), so PgDn starts with the row cut at the bottom and never
/// skips one; before the view has measured, a fifth of the help's page.
private func readOverlay(_ action: Action, _ open: Overlay, help: Bool, _ state: inout AppState) -> [Effect] {
    var overlay = open
    overlay.ignoredKey = nil
    let page = max(1, state.geometry.helpPage)
    let last = state.geometry.helpLines > 0 ? max(0, state.geometry.helpLines - page) : Int.max
    func scroll(by delta: Int) { overlay.offset = min(max(0, overlay.offset + delta), last) }
    switch action {
    case .quit: return [.quit]
    case .dismiss:
        state.layer = .browsing
        return []
    case .toggleHelp:
        state.layer = help ? .browsing : .help(Overlay())
        return []
    case .toggleLints:
        state.layer = help ? .warnings(Overlay()) : .browsing
        return []
    case .moveUp where help: scroll(by: -1)
    case .moveDown where help: scroll(by: 1)
    case .pageUp where help: scroll(by: -page)
    case .pageDown where help: scroll(by: page)
    case .end where help: scroll(by: state.geometry.helpLines)
    case .home: overlay.offset = 0
    // The warnings scroll by row (a mistake and its place): the first row shown.
    case .moveUp, .moveDown, .pageUp, .pageDown, .end:
        let lastRow = max(0, state.warnings.groups.count - 1)
        let rows = overlay.rowsShown > 0 ? overlay.rowsShown : max(1, page / 5)
        let delta = action == .moveUp ? -1 : action == .moveDown ? 1 : action == .pageUp ? -rows : action == .pageDown ? rows : lastRow
        overlay.offset = min(max(0, overlay.offset + delta), lastRow)
    default: overlay.ignoredKey = action
    }
    state.layer = help ? .help(overlay) : .warnings(overlay)
    return []
}

/// The confirmation is on top and names what the cancel reaches: `y` sends it, `q`
/// quits, and any other key keeps the stage.
private func confirmCancel(_ preview: CancelPreview, _ action: Action, _ state: inout AppState) -> [Effect] {
    switch action {
    case .confirm:
        state.layer = .browsing
        state.session.notice = Notice(text: "cancelling #\(preview.target)…", isError: false)
        return [.cancelNode(preview.target)]
    case .quit:
        return [.quit]
    default:
        state.layer = .browsing
        state.session.notice = Notice(text: "not cancelled", isError: false)
        return []
    }
}
