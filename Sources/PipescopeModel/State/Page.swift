/// What the body of the screen shows. `t` switches; Enter on a table row opens the tree
/// scoped to that pipeline, and Esc comes back.
public enum Page: Equatable, Sendable {
    /// The pipelines table: one row per pipeline, sortable (the first screen).
    case table
    /// The stage tree: every pipeline, or one (``AppState/Tree/scope``).
    case tree
}
