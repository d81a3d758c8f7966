import PipescopeGraph

/// The names trace viewers show for a pipeline's tracks: its operators in code order
/// (source first, as the pipeline is written), its subscriber, and the root's id.
///
/// ```
/// #1 PassthroughSubject → Map → Filter → Sink
/// #1 PassthroughSubject → Map → Filter → Sink · branch 1
/// #9 Timer → … → Debounce → ReceiveOn → profile avatar → Sink
/// ```
/// A stage named with `pipescopeName("…")` shows its name in place of its operator.
enum TrackNames {
    static func name(of pipeline: LaneBook.Pipeline, root: NodeInfo?) -> String {
        var operators = Array(pipeline.chain.reversed())
        if pipeline.chainLength > pipeline.chain.count, operators.count > 1 {
            operators.insert("…", at: 1)
        }
        let name = "#\(pipeline.root) " + (operators + [pipeline.subscriber]).joined(separator: " → ")
        // LOCATION: when NodeInfo carries where the program made a stage (a root's
        // `location`: the sink, assign or subscribe call; being added on another branch
        // as `NodeInfo.location: SourceLocation?`), the track says where its pipeline was
        // written: `if let place = root?.location?.short { name += "  (\(place))" }`
        // ("Feed.swift:88"), and `let name` becomes `var name`. Not on main yet.
        _ = root
        return name
    }

    static func name(of pipeline: LaneBook.Pipeline, root: NodeInfo?, lane: Int) -> String {
        let main = name(of: pipeline, root: root)
        return lane == 0 ? main : main + " · branch \(lane)"
    }
}
