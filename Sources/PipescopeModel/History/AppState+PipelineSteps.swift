import PipescopeGraph

extension AppState {
    /// The stages of the pipeline shown alone (Enter on the table, or on a stage: the
    /// tree's ``Tree/scope``), as far as the live graph and the graph at the cursor know
    /// them; nil when every pipeline is shown.
    ///
    /// A one-pipeline view moves through that pipeline's events only: `[` `]`, the event
    /// log's arrows and the timeline's `←` `→` skip the other pipelines' events, so the
    /// cursor never lands on a value of a pipeline that is not on screen.
    func scopedStages() -> Set<NodeID>? {
        guard let root = tree.scope else { return nil }
        var stages: Set<NodeID> = [root]
        for graph in [cursor.liveGraph, cursor.graph] {
            for id in graph.nodes.keys where Self.pipeline(of: id, in: graph) == root { stages.insert(id) }
        }
        return stages
    }

    /// The position `delta` of `stages`' events away from `position` (earlier when
    /// negative), or the last of them found that way; nil when there is none.
    func position(from position: Int, by delta: Int, among stages: Set<NodeID>) -> Int? {
        let log = cursor.log
        let step = delta < 0 ? -1 : 1
        var left = abs(delta)
        var at = position
        var found: Int?
        while left > 0 {
            at += step
            guard at > log.start, at <= log.end else { break }
            if let event = log.event(at: at), stages.contains(event.node) {
                found = at
                left -= 1
            }
        }
        return found
    }

    /// Moves the cursor `delta` events of the pipeline shown alone; past its newest event
    /// it is live again. Says so when no earlier event of it is kept.
    mutating func moveThroughPipeline(by delta: Int, stages: Set<NodeID>) {
        let at = cursor.position ?? cursor.log.end
        if let to = position(from: at, by: delta, among: stages) {
            cursor.move(to: to)
        } else if delta > 0 {
            cursor.goLive()
        } else if let root = tree.scope {
            session.notice = Notice(text: "no earlier event of pipeline #\(root) is kept (Esc shows every pipeline)",
                                    isError: false)
        }
    }
}
