/// Labels a stage for the inspector: the tap shows this instead of the type's name
/// (`pipescopeName` and `pipescopeExpect` publishers conform).
package protocol PipescopeLabelled {
    var pipescopeLabel: String { get }
    /// The publisher it wraps, whose type the detail pane shows.
    var pipescopeUpstreamType: Any.Type { get }
}
