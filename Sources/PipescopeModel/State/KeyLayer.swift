/// What has the keyboard: the one layer of the screen that keys act on.
///
/// Not to be confused with the modes a user sees in the status bar (live, paused,
/// history: ``AppState/Session`` and ``AppState/HistoryCursor``): a layer is about keys.
///
/// Exactly one layer is on top at a time. The reducer dispatches a key on the layer
/// before anything else, the screen draws the layer's overlay, and the app loop reads
/// keys as text only while ``filtering``. So a key never reaches a layer the user
/// cannot see: with the warnings open, `c` does not open a cancel confirmation
/// hidden under them.
///
/// ```swift
/// switch state.layer {
/// case .confirmingCancel(let preview): ConfirmCancelOverlay.render(preview, …)
/// default: …
/// }
/// ```
public enum KeyLayer: Equatable, Sendable {
    /// The tree and the panes have the keys.
    case browsing
    /// The `/` filter is being typed: keys are text.
    case filtering
    /// The list of keys is open (`?`).
    case help(Overlay)
    /// The list of lifecycle warnings is open (`w`).
    case warnings(Overlay)
    /// Cancelling a stage waits for `y`; the preview names everything it reaches.
    case confirmingCancel(CancelPreview)
    /// Where a value came from is open (`e`): its chain, or why there is none.
    case explaining(Explanation)

    /// The open help's, warnings' or explanation's state; nil for the other layers.
    public var overlay: Overlay? {
        switch self {
        case .help(let overlay), .warnings(let overlay): return overlay
        case .explaining(let explanation): return explanation.overlay
        case .browsing, .filtering, .confirmingCancel: return nil
        }
    }

    public var isExplaining: Bool {
        if case .explaining = self { return true }
        return false
    }

    public var isHelp: Bool {
        if case .help = self { return true }
        return false
    }

    public var isWarnings: Bool {
        if case .warnings = self { return true }
        return false
    }
}

/// What an open overlay that keeps the keyboard (the help, the warnings) remembers: it
/// belongs to the layer, so it starts afresh each time the overlay opens.
public struct Overlay: Equatable, Sendable {
    /// The first line shown, when the overlay is taller than the screen.
    public internal(set) var offset = 0
    /// The warnings list: how many rows the view shows whole from ``offset`` (0: not
    /// measured yet), sent by the app after each key (``Message/warningsShown(_:)``), so
    /// PgDn starts with the first row not shown whole and never skips one.
    public internal(set) var rowsShown = 0
    /// The last key the overlay did not act on, so the hint bar can say why nothing
    /// happened. Cleared by the next key.
    public internal(set) var ignoredKey: Action?

    public init() {}
}
