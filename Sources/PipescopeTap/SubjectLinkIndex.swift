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
    private var publishersOf = IdentityTable<ObjectIdentifier, Linked>()
    private var feedersOf = IdentityTable<ObjectIdentifier, Linked>()

    /// Adds a new stage's links; returns the (upstream, branch) pairs it completes.
    mutating func subscribed(_ node: NodeID, publishes: ObjectIdentifier?,
                             feeds: ObjectIdentifier?) -> [(upstream: NodeID, branch: NodeID)] {
        var pairs: [(NodeID, NodeID)] = []
        if let subject = publishes {
            if publishersOf.modify(subject, { $0.add(node) }) == nil { publishersOf[subject] = .one(node) }
            feedersOf[subject]?.forEach { pairs.append(($0, node)) }
        }
        if let subject = feeds {
            if feedersOf.modify(subject, { $0.add(node) }) == nil { feedersOf[subject] = .one(node) }
            publishersOf[subject]?.forEach { pairs.append((node, $0)) }
        }
        return pairs
    }

    mutating func forget(_ node: NodeID, publishes: ObjectIdentifier?, feeds: ObjectIdentifier?) {
        if let subject = publishes { Self.remove(node, from: &publishersOf, subject) }
        if let subject = feeds { Self.remove(node, from: &feedersOf, subject) }
    }

    private static func remove(_ node: NodeID, from map: inout IdentityTable<ObjectIdentifier, Linked>,
                               _ subject: ObjectIdentifier) {
        if map.modify(subject, { $0.remove(node) }) == true { map[subject] = nil }
    }

    /// The stages linked to one subject. Almost always one (a subject with one
    /// subscriber), kept inline: subscribing to a subject and cancelling allocates nothing
    /// here.
    enum Linked: Equatable {
        case one(NodeID)
        case many([NodeID])

        mutating func add(_ node: NodeID) {
            switch self {
            case .one(let first):
                self = .many([first, node])
            case .many(var nodes):
                self = .one(0)  // lets go of the array, so the append below does not copy it
                nodes.append(node)
                self = .many(nodes)
            }
        }

        /// Removes `node`; true when no stage is left.
        mutating func remove(_ node: NodeID) -> Bool {
            switch self {
            case .one(let only):
                return only == node
            case .many(var nodes):
                self = .one(0)
                nodes.removeAll { $0 == node }
                self = nodes.count == 1 ? .one(nodes[0]) : .many(nodes)
                return nodes.isEmpty
            }
        }

        func forEach(_ body: (NodeID) -> Void) {
            switch self {
            case .one(let node): body(node)
            case .many(let nodes): nodes.forEach(body)
            }
        }
    }
}
