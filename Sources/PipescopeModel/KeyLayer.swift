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
    case help
    /// The list of lifecycle warnings is open (`w`).
    case warnings
    /// Cancelling a stage waits for `y`; the preview names everything it reaches.
    case confirmingCancel(CancelPreview)
}
