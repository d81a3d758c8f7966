extension Graph {
    /// Counts a value's delivery time: it ran the code of the operator downstream of the
    /// event's stage (the first parent that is not merely forwarding to it), or the
    /// sink's for a root.
    mutating func time(_ event: StageEvent) {
        guard event.totalNanos > 0 || event.selfNanos > 0 else { return }
        guard let (stage, sink) = timedStage(of: event.node) else { return }
        // By index, in place: `nodes[stage]?.parent` copied the whole summary each time.
        guard let i = nodes.index(forKey: stage) else { return }
        nodes.values[i].addTimes(own: event.selfNanos, withDownstream: sink ? 0 : event.totalNanos, sink: sink)
        recorder.touch(stage)
    }

    /// The stage whose code a value delivered by stage `node` ran, which its times are
    /// counted on: the operator downstream of it (the first parent that is not merely
    /// forwarding to it), or `node` itself when it is a root (`sink`: the time is the
    /// sink's). Nil when the graph does not have `node`. What the metrics'
    /// `pipescope_stage_seconds` charges a value's own time to, as the tree does.
    ///
    /// ```swift
    /// graph.timedStage(of: justStage)   // (mapStage, false): the map's closure ran
    /// graph.timedStage(of: rootStage)   // (rootStage, true): the sink's closure ran
    /// ```
    public func timedStage(of node: NodeID) -> (stage: NodeID, sink: Bool)? {
        var stage = node
        guard var s = nodes.index(forKey: stage) else { return nil }
        while let parent = nodes.values[s].parent, !mirrors.isEmpty, mirrors[stage]?.contains(parent) == true {
            guard let p = nodes.index(forKey: parent) else { return nil }
            (stage, s) = (parent, p)
        }
        if let parent = nodes.values[s].parent, nodes.index(forKey: parent) != nil { return (parent, false) }
        return (stage, true)
    }
}
