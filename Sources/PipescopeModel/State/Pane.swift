/// The panes of the full layout, in Tab order.
public enum Pane: String, CaseIterable, Sendable {
    case tree, timeline, detail, events

    /// The pane `step` places from this one (1: Tab, -1: Shift-Tab) among `shown`, in Tab
    /// order, wrapping; the first shown when this one is not shown.
    public func step(_ step: Int, among shown: [Pane]) -> Pane {
        guard let at = shown.firstIndex(of: self) else { return shown.first ?? self }
        return shown[((at + step) % shown.count + shown.count) % shown.count]
    }
}
