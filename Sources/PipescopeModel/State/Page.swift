/// What the body of the screen shows. `t` switches between the table and the tree; Enter
/// on a table row opens the tree scoped to that pipeline, and Esc comes back; `T` opens
/// the timeline screen and closes it again.
public enum Page: Equatable, Sendable {
    /// The pipelines table: one row per pipeline, sortable (the first screen).
    case table
    /// The stage tree: every pipeline, or one (``AppState/Tree/scope``).
    case tree
    /// The timeline across the width: the tree's rows as narrow names on the left, their
    /// lanes across the rest, the event log below (`T`). For reading a long recording.
    case timeline

    /// Whether it shows the tree's rows (the tree and the timeline do).
    public var showsStages: Bool { self != .table }
}
