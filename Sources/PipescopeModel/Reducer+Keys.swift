import PipescopeGraph

// MARK: - Keys, by layer

/// A key, acted on by the layer that has the keyboard and by no other.
///
/// | layer            | acts on                                                   | any other action            |
/// |------------------|-----------------------------------------------------------|-----------------------------|
/// | browsing         | every action                                              | —                           |
/// | filtering        | `filterType`, `filterBackspace`, `filterAccept`; `dismiss` clears | ignored             |
/// | help             | `toggleHelp`, `dismiss` close; `toggleLints` switches; `quit`; the arrows and pages scroll | ignored, kept in `ignoredKey` |
/// | warnings         | `toggleLints`, `dismiss` close; `toggleHelp` switches; `quit` | ignored, kept in `ignoredKey` |
/// | confirmingCancel | `confirm` sends the cancel; `quit`                        | keeps the stage, says so    |
func apply(_ action: Action, to state: inout AppState) -> [Effect] {
    state.ignoredKey = nil
    switch state.layer {
    case .browsing:
        return browse(action, &state)
    case .filtering:
        editFilter(action, &state)
        return []
    case .help, .warnings:
        return readOverlay(action, &state)
    case .confirmingCancel(let preview):
        return confirmCancel(preview, action, &state)
    }
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
/// does nothing (the hint bar names it and says how to close).
private func readOverlay(_ action: Action, _ state: inout AppState) -> [Effect] {
    switch action {
    case .quit: return [.quit]
    case .dismiss: state.layer = .browsing
    case .moveUp where state.layer == .help: scrollHelp(by: -1, &state)
    case .moveDown where state.layer == .help: scrollHelp(by: 1, &state)
    case .pageUp where state.layer == .help: scrollHelp(by: -helpPage(state), &state)
    case .pageDown where state.layer == .help: scrollHelp(by: helpPage(state), &state)
    case .home where state.layer == .help: state.helpOffset = 0
    case .end where state.layer == .help: scrollHelp(by: state.helpLength, &state)
    case .toggleHelp:
        state.layer = state.layer == .help ? .browsing : .help
        state.helpOffset = 0
    case .toggleLints: state.layer = state.layer == .warnings ? .browsing : .warnings
    default: state.ignoredKey = action
    }
    return []
}

/// Lines of the help on screen at once when it scrolls: the body less the box and its
/// footer (the help overlay draws it so).
private func helpPage(_ state: AppState) -> Int { max(1, state.height - 5) }

/// Scrolls the help, no further than its last line at the bottom.
private func scrollHelp(by delta: Int, _ state: inout AppState) {
    let last = state.helpLength > 0 ? max(0, state.helpLength - helpPage(state)) : Int.max
    state.helpOffset = min(max(0, state.helpOffset + delta), last)
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
