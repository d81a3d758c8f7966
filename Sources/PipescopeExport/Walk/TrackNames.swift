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

extension TrackNames {
    /// A stage's own track (Perfetto's format draws one per stage, under its downstream's):
    /// its id and operator, and where the program made it when that is its own place (a
    /// root's `sink`, an inner publisher's), not inherited from its pipeline.
    ///
    /// ```
    /// #12 Map
    /// #9 Sink  (FeedModel.swift:88)
    /// ```
    static func stage(_ node: NodeSummary, location: StageLocation?) -> String {
        var name = "#\(node.id) \(node.operatorName)"
        if let location, !location.isInherited { name += "  (\(location.location.short))" }
        return name
    }
}
