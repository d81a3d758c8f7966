import PipescopeWire

/// The pipeline graph as a fold over the event stream.
///
/// The probe folds its own events into one `Graph` to answer snapshots; the inspector
/// loads that snapshot and folds the same events after it. Sharing this one fold is
/// what keeps the two pictures identical.
///
/// ```swift
/// var graph = Graph()
/// graph.load(snapshot)
/// graph.apply(batch)
/// graph.roots.map { graph.nodes[$0]!.operatorName }
/// ```
public struct Graph: Sendable, Equatable {
    public private(set) var nodes: [NodeID: NodeSummary] = [:]
    /// Root stages in the order they were created.
    public private(set) var roots: [NodeID] = []
    /// Events the probe dropped because its buffer was full.
    public private(set) var dropped: UInt64 = 0
    /// The probe's sequence number of the last event folded in.
    public private(set) var sequence: UInt64 = 0
    /// Owners (CancellableBags) that have held stages, by id.
    public private(set) var owners: [UInt64: Owner] = [:]
    /// Nodes that mirror another's events (forwarders), keyed by the stage they forward to.
    private var mirrors: [NodeID: [NodeID]] = [:]

    public init() {}

    public subscript(id: NodeID) -> NodeSummary? { nodes[id] }

    // MARK: - Folding

    public mutating func load(_ snapshot: WireSnapshot) {
        self = Graph()
        for state in snapshot.nodes { insert(NodeSummary(state: state)) }
        for state in snapshot.nodes {
            let id = state.info.id
            if state.subscriptionOwner != 0 { link(id, sharing: state.subscriptionOwner) }
            if state.forwardsTo != 0 { forward(id, to: state.forwardsTo) }
            for fed in state.feeds { feed(fed, from: id) }
        }
        for owner in snapshot.owners {
            owners[owner.id] = Owner(name: owner.name, releasedNanos: owner.releasedNs == 0 ? nil : owner.releasedNs)
        }
        dropped = snapshot.dropped
        sequence = snapshot.sequence
    }

    public mutating func apply(_ batch: WireEventBatch) {
        var infos: [NodeID: WireNodeInfo] = [:]
        for info in batch.nodes { infos[info.id] = info }
        for event in batch.events {
            if event.kind == .eventSubscribe, let info = infos[event.node] {
                insert(NodeSummary(info: info))
            } else {
                apply(event)
            }
        }
        for (id, text) in batch.lastValues { update(id) { $0.lastValue = text } }
        dropped = batch.dropped
        sequence = batch.sequence
    }

    /// Folds one event. Events for unknown stages (pruned, or from before a snapshot)
    /// are ignored.
    public mutating func apply(_ event: WireEvent) {
        switch event.kind {
        case .eventSubscribe, .eventUnknown, .UNRECOGNIZED:
            return
        case .eventForward:
            forward(event.node, to: event.other)
        case .eventAdopt:
            adopt(event.node, under: event.other)
        case .eventFeeds:
            feed(event.other, from: event.node)
        case .eventOwned:
            guard nodes[event.node] != nil else { return }
            if owners[event.other] == nil { owners[event.other] = Owner(name: event.text) }
            update(event.node) { $0.owner = NodeOwner(id: event.other, name: event.text) }
        case .eventOwnerReleased:
            owners[event.other, default: Owner(name: event.text)].releasedNanos = event.timeNs
        case .eventContractBroken:
            update(event.node) { $0.contractBroken.append(event.text) }
        case .eventSubscription:
            guard nodes[event.node] != nil else { return }
            let owner = event.other == 0 || event.other == event.node ? nil : event.other
            update(event.node) { node in
                if node.status == .subscribing { node.status = .active }
            }
            if let owner { link(event.node, sharing: owner) }
        case .eventRequest, .eventDemand:
            // request(_:) goes to the shared subscription, so every stage passing it on
            // gets the demand; a demand returned from receive(_:) is one stage's.
            let returned = event.kind == .eventDemand
            let request = DemandRequest(time: event.timeNs, demand: Demand(wire: event.demand), returned: returned)
            for id in returned ? [event.node] : shareGroup(of: event.node) {
                update(id) { node in
                    node.requested = node.requested + request.demand
                    node.noteRequest(request)
                }
            }
        case .eventValue:
            update(event.node) { node in
                node.values += 1
                node.lastValueNanos = event.timeNs
                if !event.text.isEmpty { node.lastValue = event.text }
                if node.status.isTerminal { node.afterEnd += 1 }
            }
        case .eventFinished:
            update(event.node) { node in
                if node.status.isTerminal { node.afterEnd += 1 }
                node.end(.finished, at: event.timeNs)
            }
        case .eventFailed:
            update(event.node) { node in
                guard !node.status.isTerminal else {
                    node.afterEnd += 1
                    return
                }
                node.end(.failed, at: event.timeNs)
                node.error = event.text
            }
        case .eventCancelled:
            let cause = CancelCause(event.cause) ?? .downstream
            let group = shareGroup(of: event.node)
            for id in group {
                update(id) { node in
                    guard !node.status.isTerminal else { return }
                    node.end(.cancelled, at: event.timeNs)
                    node.cause = cause
                }
            }
            if cause != .downstream { markOrphans(below: group) }
        }
    }

    /// Whether a stage and everything upstream of it have ended.
    public func isEnded(_ id: NodeID) -> Bool {
        guard let node = nodes[id] else { return true }
        return node.status.isTerminal && node.children.allSatisfy { isEnded($0) }
    }

    // MARK: - Pruning

    /// Removes ended subtrees, at any depth, whose top stage ended before
    /// `now - retention.seconds`, then the oldest ended pipelines beyond
    /// `retention.maxEndedPipelines`. A subtree counts as ended only when every stage
    /// in it ended, so nothing live is ever removed.
    public mutating func prune(now nanos: Int64, retention: Retention) {
        let cutoff = nanos - Int64(retention.seconds * 1e9)
        var ended: [NodeID: Bool] = [:]
        func isEnded(_ id: NodeID) -> Bool {
            if let known = ended[id] { return known }
            guard let node = nodes[id] else { return true }
            var result = node.status.isTerminal
            for child in node.children where !isEnded(child) { result = false }
            ended[id] = result
            return result
        }
        func expired(_ id: NodeID) -> Bool {
            isEnded(id) && (nodes[id]?.endedNanos ?? .max) < cutoff
        }
        var doomedRoots = Set(roots.filter(expired))
        let endedRoots = roots.filter { isEnded($0) && !doomedRoots.contains($0) }
        doomedRoots.formUnion(endedRoots.prefix(max(0, endedRoots.count - retention.maxEndedPipelines)))
        for root in doomedRoots { remove(subtree: root) }
        roots.removeAll { doomedRoots.contains($0) }
        // Ended inner stages of live pipelines (flatMap's finished inner publishers).
        var stack = roots
        while let id = stack.popLast() {
            guard let children = nodes[id]?.children else { continue }
            let doomed = children.filter(expired)
            if !doomed.isEmpty {
                for child in doomed { remove(subtree: child) }
                nodes[id]?.children.removeAll { doomed.contains($0) }
            }
            stack.append(contentsOf: nodes[id]?.children ?? [])
        }
        // A released owner is forgotten with its last stage.
        if owners.contains(where: { $0.value.releasedNanos != nil }) {
            let held = Set(roots.compactMap { nodes[$0]?.owner?.id })
            owners = owners.filter { $0.value.releasedNanos == nil || held.contains($0.key) }
        }
    }

    /// The whole graph as a snapshot message.
    public func snapshot() -> WireSnapshot {
        var s = WireSnapshot()
        s.nodes = nodes.keys.sorted().compactMap { nodes[$0]?.wireState }
        s.owners = owners.keys.sorted().compactMap { id in
            owners[id].map { o in .with { $0.id = id; $0.name = o.name; $0.releasedNs = o.releasedNanos ?? 0 } }
        }
        s.dropped = dropped
        s.sequence = sequence
        return s
    }

    // MARK: - Internals

    private mutating func insert(_ node: NodeSummary) {
        guard nodes[node.id] == nil else { return }
        var node = node
        if let parent = node.parent, nodes[parent] != nil {
            nodes[parent]?.children.append(node.id)
        } else {
            node.parent = nil
            roots.append(node.id)
        }
        nodes[node.id] = node
    }

    private mutating func link(_ id: NodeID, sharing owner: NodeID) {
        guard nodes[id] != nil, nodes[owner] != nil else { return }
        nodes[id]?.subscriptionOwner = owner
        if nodes[owner]?.sharers.contains(id) == false {
            nodes[owner]?.sharers.append(id)
            nodes[owner]?.sharers.sort()
        }
    }

    private mutating func forward(_ id: NodeID, to target: NodeID) {
        guard nodes[id] != nil, nodes[target] != nil else { return }
        nodes[id]?.forwardsTo = target
        mirrors[target, default: []].append(id)
    }

    /// Moves a root that turned out to have a downstream under it.
    private mutating func adopt(_ id: NodeID, under parent: NodeID) {
        guard nodes[id]?.parent == nil else { return }
        move(id, under: parent)
    }

    private mutating func move(_ id: NodeID, under parent: NodeID) {
        guard let node = nodes[id], nodes[parent] != nil, id != parent, !isAncestor(id, of: parent) else { return }
        if let old = node.parent {
            nodes[old]?.children.removeAll { $0 == id }
        } else {
            roots.removeAll { $0 == id }
        }
        nodes[id]?.parent = parent
        nodes[parent]?.children.append(id)
    }

    /// Whether `ancestor` is `id` or lies downstream of it.
    private func isAncestor(_ ancestor: NodeID, of id: NodeID) -> Bool {
        var current: NodeID? = id
        while let c = current {
            if c == ancestor { return true }
            current = nodes[c]?.parent
        }
        return false
    }

    /// Records that `upstream` also feeds `stage` through a subject. The first stage it
    /// feeds in its own branch (or anywhere, for a root) becomes its parent: that is
    /// where its values go. Other branches show it by reference.
    private mutating func feed(_ stage: NodeID, from upstream: NodeID) {
        guard nodes[stage] != nil, nodes[upstream] != nil, stage != upstream,
              nodes[upstream]?.feeds.contains(stage) == false else { return }
        nodes[upstream]?.feeds.append(stage)
        let parent = nodes[upstream]?.parent
        let placed = parent.map { p in nodes[p].map { !$0.children.isEmpty } ?? false } ?? false
        if parent == nil || (placed && isAncestor(parent!, of: stage) && nodes[upstream]?.feeds.count == 1) {
            move(upstream, under: stage)
        } else {
            nodes[stage]?.feeders.append(upstream)
        }
    }

    /// Stages downstream of a cancel that did not come from them will get nothing more,
    /// unless another live upstream still feeds them (a flatMap's other inners).
    private mutating func markOrphans(below group: [NodeID]) {
        for id in group {
            var child = id
            var parent = nodes[id]?.parent
            while let p = parent, !group.contains(p), let node = nodes[p], !node.status.isTerminal {
                let stillFed = node.children.contains { other in
                    other != child && !group.contains(other) && (nodes[other].map { !$0.status.isTerminal } ?? false)
                }
                if stillFed { break }
                nodes[p]?.orphaned = true
                child = p
                parent = node.parent
            }
        }
    }

    /// A stage and the stages that share its subscription object.
    private func shareGroup(of id: NodeID) -> [NodeID] {
        [id] + (nodes[id]?.sharers ?? [])
    }

    /// Changes a stage in place (one hash lookup), and the stages mirroring it.
    private mutating func update(_ id: NodeID, _ change: (inout NodeSummary) -> Void) {
        guard let index = nodes.index(forKey: id) else { return }
        change(&nodes.values[index])
        guard !mirrors.isEmpty, let mirroring = mirrors[id] else { return }
        for mirror in mirroring {
            if let i = nodes.index(forKey: mirror) { change(&nodes.values[i]) }
        }
    }

    private mutating func remove(subtree id: NodeID) {
        guard let node = nodes.removeValue(forKey: id) else { return }
        mirrors[id] = nil
        for fed in node.feeds { nodes[fed]?.feeders.removeAll { $0 == id } }
        for child in node.children { remove(subtree: child) }
    }
}

extension NodeSummary {
    /// Moves to a terminal status; a stage that already ended keeps its first ending.
    mutating func end(_ status: NodeStatus, at nanos: Int64) {
        guard !self.status.isTerminal else { return }
        self.status = status
        endedNanos = nanos
    }
}

/// An owner of subscriptions (a CancellableBag), as the inspector knows it.
public struct Owner: Hashable, Sendable {
    public var name: String
    /// When it was released; nil while alive.
    public var releasedNanos: Int64?

    public init(name: String, releasedNanos: Int64? = nil) {
        self.name = name
        self.releasedNanos = releasedNanos
    }
}
