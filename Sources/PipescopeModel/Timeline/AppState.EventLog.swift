import PipescopeGraph

extension AppState {
    /// Which events the event log lists: the selected stage's or its pipeline's when `f`
    /// asks for them (``LogScope``), else the pipeline shown alone (Enter on the table)
    /// when there is one, else every one.
    ///
    /// ```swift
    /// switch state.eventLog {
    /// case .stage(let id): …            // "only #5"
    /// case .pipeline(let root, let stages): …   // "pipeline #3's stages"
    /// case .all: …
    /// }
    /// ```
    public enum EventLog: Equatable, Sendable {
        case all
        /// One pipeline's: its root, and its stages in the graph on screen.
        case pipeline(NodeID, stages: Set<NodeID>)
        case stage(NodeID)

        /// The stages whose events are listed; nil: every event.
        public var stages: Set<NodeID>? {
            switch self {
            case .all: return nil
            case .pipeline(_, let stages): return stages
            case .stage(let id): return [id]
            }
        }
    }

    /// What `f` asks the event log to list: what the screen shows (every pipeline, or
    /// the one shown alone), the selected stage's pipeline, or the selected stage. `f`
    /// goes through them in that order (on one pipeline's tree, its pipeline is what the
    /// screen shows, so it goes from that to the stage and back).
    public enum LogScope: Sendable, Equatable {
        case shown, pipeline, stage

        /// The next scope `f` gives, the tree showing one pipeline or all of them.
        func next(treeScoped: Bool) -> LogScope {
            switch self {
            case .shown: return treeScoped ? .stage : .pipeline
            case .pipeline: return .stage
            case .stage: return .shown
            }
        }
    }

    /// What the event log lists now.
    public var eventLog: EventLog {
        switch timeline.logScope {
        case .stage:
            if let id = selectedNode?.id { return .stage(id) }
        case .pipeline:
            if let id = selectedNode?.id, let root = cursor.graph.pipeline(of: id) ?? cursor.liveGraph.pipeline(of: id) {
                return .pipeline(root, stages: stages(of: root))
            }
        case .shown:
            break
        }
        if page.showsStages, let root = tree.scope { return .pipeline(root, stages: stages(of: root)) }
        return .all
    }

    /// `f`: the event log lists the next scope (``LogScope``). Its title says which and
    /// what the next `f` does; where the screen shows no event log (below 120x30, `f`
    /// still chooses the events `[` `]` step through), the status line says it.
    mutating func nextLogScope() {
        timeline.logScope = timeline.logScope.next(treeScoped: page.showsStages && tree.scope != nil)
        guard page != .timeline, !panesShown.contains(.events) else { return }
        let next: String
        switch timeline.logScope.next(treeScoped: page.showsStages && tree.scope != nil) {
        case .shown: next = tree.scope == nil ? "every pipeline's" : "its pipeline's"
        case .pipeline: next = "the selected stage's pipeline's"
        case .stage: next = "the selected stage's"
        }
        let now: String
        switch eventLog {
        case .all: now = "every pipeline's events"
        case .pipeline(let root, _): now = "pipeline #\(root)'s events only"
        case .stage(let id): now = "#\(id)'s events only"
        }
        session.notice = Notice(text: "event log: \(now) (f: \(next))", isError: false)
    }

    /// Pipeline `root`'s stages: the root and everything upstream of it, in the graph on
    /// screen and in the live graph (at a past moment, the stages it makes later are its
    /// too: stepping forward lands on their first events).
    public func stages(of root: NodeID) -> Set<NodeID> {
        var found: Set<NodeID> = []
        for graph in [cursor.graph, cursor.liveGraph] {
            var seen: Set<NodeID> = []
            var stack = [root]
            while let id = stack.popLast() {
                guard let node = graph[id], seen.insert(id).inserted else { continue }
                found.insert(id)
                stack.append(contentsOf: node.children)
            }
        }
        return found
    }
}
