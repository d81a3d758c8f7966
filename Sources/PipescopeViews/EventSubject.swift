import PipescopeGraph
import PipescopeModel

/// Who an event happened to, as the event log and the history line name it:
///
/// ```
/// #3 Map                      a stage the graph on screen (or the live one) has
/// #12 task "feed refresh"     a task shown as a stage (bag.watch, eraseToAnyCancellable)
/// #12 Map (pruned)            a stage pruned since, named from the history
/// #12 (pruned)                a stage pruned since, whose subscribe event is gone too
/// owner "ProfileScreen"       an owner released (its events have no stage: node 0)
/// (no stage)                  any other event without a stage
/// ```
enum EventSubject {
    static func name(of e: StageEvent, in state: AppState) -> String {
        let cursor = state.cursor
        switch e.kind {
        case .ownerReleased: return owner(e.other, named: e.text, in: state)
        case .unknown, .subscribe, .subscription, .request, .value, .demand, .finished, .failed, .cancelled,
             .forward, .adopt, .feeds, .owned, .contractBroken, .delivered:
            break  // about a stage
        }
        guard e.node != 0 else { return "(no stage)" }
        if let node = cursor.graph[e.node] ?? cursor.liveGraph[e.node] {
            return stage(e.node, op: node.operatorName, type: node.publisherType, subscriber: node.subscriber)
        }
        // Pruned from the graph (ended long enough ago), or from before the snapshot.
        guard let info = cursor.log.info(of: e.node) else { return "#\(e.node) (pruned)" }
        return stage(e.node, op: info.operatorName, type: info.publisherType, subscriber: info.subscriber)
            + " (pruned)"
    }

    /// `owner "name"`: the event's text, else the name the graph knows, else its id.
    static func owner(_ id: UInt64, named text: String, in state: AppState) -> String {
        let known = state.cursor.graph.owners[id]?.name ?? state.cursor.liveGraph.owners[id]?.name
        guard let name = text.isEmpty ? known : text, !name.isEmpty else { return "owner #\(id)" }
        return "owner \"\(name)\""
    }

    /// A task is a stage the tap makes with subscriber "Task" and type `Task<…>`
    /// (Pipescope's TaskStage); its operator name is the name the program gave it.
    private static func stage(_ id: NodeID, op: String, type: String, subscriber: String) -> String {
        subscriber == "Task" && type.hasPrefix("Task<") ? "#\(id) task \"\(op)\"" : "#\(id) \(op)"
    }
}
