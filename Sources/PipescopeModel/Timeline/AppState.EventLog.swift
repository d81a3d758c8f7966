import PipescopeGraph

extension AppState {
    /// Which events the event log lists: the selected stage's when `f` asks for them, else
    /// the pipeline shown alone (Enter on the table) when there is one, else every one.
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

    /// What the event log lists now.
    public var eventLog: EventLog {
        if timeline.logFollowsSelection, let id = selectedNode?.id { return .stage(id) }
        if page.showsStages, let root = tree.scope { return .pipeline(root, stages: stages(of: root)) }
        return .all
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
