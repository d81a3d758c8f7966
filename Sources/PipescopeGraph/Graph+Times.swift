extension Graph {
    /// Counts a value's delivery time: it ran the code of the operator downstream of the
    /// event's stage (the first parent that is not merely forwarding to it), or the
    /// sink's for a root.
    mutating func time(_ event: StageEvent) {
        guard event.totalNanos > 0 || event.selfNanos > 0 else { return }
        // By index, in place: `nodes[stage]?.parent` copied the whole summary each time.
        var stage = event.node
        guard var s = nodes.index(forKey: stage) else { return }
        while let parent = nodes.values[s].parent, !mirrors.isEmpty, mirrors[stage]?.contains(parent) == true {
            guard let p = nodes.index(forKey: parent) else { return }
            (stage, s) = (parent, p)
        }
        if let parent = nodes.values[s].parent, let i = nodes.index(forKey: parent) {
            nodes.values[i].addTimes(own: event.selfNanos, withDownstream: event.totalNanos, sink: false)
            recorder.touch(parent)
        } else {
            nodes.values[s].addTimes(own: event.selfNanos, withDownstream: 0, sink: true)
            recorder.touch(stage)
        }
    }
}
