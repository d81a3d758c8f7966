import PipescopeGraph

/// Which live stages publish from each subject, and which feed into it, so that one
/// upstream feeding a subject (`share()`, `multicast`, `subscribe(subject)`) is linked
/// to every branch subscribed to that subject, whichever subscribes first.
///
/// Rules:
/// - Subjects are known by `ObjectIdentifier` only; nothing here keeps a subject alive.
/// - A stage's links go when the stage ends (``StageIndex/retire(_:links:)``), so a
///   reused subject address never links a new stage to an old one.
/// - Not thread-safe by itself: it lives inside ``StageRegistry``'s locked state.
struct SubjectLinkIndex {
    private var publishersOf = IdentityTable<ObjectIdentifier, [NodeID]>()
    private var feedersOf = IdentityTable<ObjectIdentifier, [NodeID]>()

    /// Adds a new stage's links; returns the (upstream, branch) pairs it completes.
    mutating func subscribed(_ node: NodeID, publishes: ObjectIdentifier?,
                             feeds: ObjectIdentifier?) -> [(upstream: NodeID, branch: NodeID)] {
        var pairs: [(NodeID, NodeID)] = []
        if let subject = publishes {
            if publishersOf.modify(subject, { $0.append(node) }) == nil { publishersOf[subject] = [node] }
            for upstream in feedersOf[subject] ?? [] { pairs.append((upstream, node)) }
        }
        if let subject = feeds {
            if feedersOf.modify(subject, { $0.append(node) }) == nil { feedersOf[subject] = [node] }
            for branch in publishersOf[subject] ?? [] { pairs.append((node, branch)) }
        }
        return pairs
    }

    mutating func forget(_ node: NodeID, publishes: ObjectIdentifier?, feeds: ObjectIdentifier?) {
        if let subject = publishes { Self.remove(node, from: &publishersOf, subject) }
        if let subject = feeds { Self.remove(node, from: &feedersOf, subject) }
    }

    private static func remove(_ node: NodeID, from map: inout IdentityTable<ObjectIdentifier, [NodeID]>,
                               _ subject: ObjectIdentifier) {
        let empty = map.modify(subject) { nodes -> Bool in
            nodes.removeAll { $0 == node }
            return nodes.isEmpty
        }
        if empty == true { map[subject] = nil }
    }
}
