import PipescopeGraph

/// The names trace viewers show for a pipeline's tracks: its operators in code order
/// (source first, as the pipeline is written), its subscriber, and the root's id.
///
/// ```
/// #1 PassthroughSubject → Map → Filter → Sink
/// #1 PassthroughSubject → Map → Filter → Sink · branch 1
/// #9 Timer → … → Debounce → ReceiveOn → profile avatar → Sink
/// #12 PassthroughSubject → Map → Sink  (FeedModel.swift:88)
/// ```
/// The place in parentheses is where the program made the pipeline, when the tap
/// recorded it (the root's source location).
/// A stage named with `pipescopeName("…")` shows its name in place of its operator.
enum TrackNames {
    static func name(of pipeline: LaneBook.Pipeline, root: NodeInfo?) -> String {
        var operators = Array(pipeline.chain.reversed())
        if pipeline.chainLength > pipeline.chain.count, operators.count > 1 {
            operators.insert("…", at: 1)
        }
        var name = "#\(pipeline.root) " + (operators + [pipeline.subscriber]).joined(separator: " → ")
        if let place = root?.location?.short { name += "  (\(place))" }
        return name
    }

    static func name(of pipeline: LaneBook.Pipeline, root: NodeInfo?, lane: Int) -> String {
        let main = name(of: pipeline, root: root)
        return lane == 0 ? main : main + " · branch \(lane)"
    }
}
