/// The pipeline graph as a fold over the event stream.
///
/// The probe folds its own events into one `Graph` to answer snapshots; the inspector
/// loads that snapshot and folds the same events after it. Sharing this one fold is
/// what keeps the two pictures identical.
///
/// ```swift
/// var graph = Graph()
/// graph.load(snapshot)
/// graph.fold(batch)                                   // a whole batch, or one event at a time:
/// graph.insert(info)                                  // a new stage (its subscribe event)
/// graph.apply(StageEvent(.value, node: info.id, time: t, text: "42"))
/// graph.roots.map { graph.nodes[$0]!.operatorName }
/// ```
public struct Graph: Sendable, Equatable {
    public internal(set) var nodes: [NodeID: NodeSummary] = [:]
    /// Root stages in the order they were created.
    public internal(set) var roots: [NodeID] = []
    /// Events the probe dropped because its buffer was full.
    public internal(set) var dropped: UInt64 = 0
    /// ``dropped`` by the pipeline that lost them (its root stage; 0: stages the probe did
    /// not know yet), as the batches folded said (``BatchTrailer/droppedByPipeline``). A
    /// snapshot carries only the total: a graph loaded from one starts this empty. A
    /// pipeline's count goes when the pipeline is pruned.
    public internal(set) var droppedByPipeline: [NodeID: UInt64] = [:]
    /// The probe's sequence number of the last event folded in: the snapshot's, plus one
    /// for every event folded since.
    public internal(set) var sequence: UInt64 = 0
    /// Owners (CancellableBags) that have held stages, by id.
    public internal(set) var owners: [UInt64: Owner] = [:]

    /// The owner holding stage `id` (a root stored in a CancellableBag), if any.
    public func owner(of id: NodeID) -> Owner? {
        nodes[id]?.ownerID.flatMap { owners[$0] }
    }
    /// Nodes that mirror another's events (forwarders), keyed by the stage they forward to.
    var mirrors: [NodeID: [NodeID]] = [:]
    /// Stages by the publisher they were subscribed to (``NodeInfo/publisher``), oldest first.
    var publishers: [UInt64: [NodeID]] = [:]
    /// The stages folds touched, while recording (``recordChanges()``).
    var recorder = ChangeRecorder()

    public init() {}

    public subscript(id: NodeID) -> NodeSummary? { nodes[id] }

    /// A stage's outstanding demand, read in place: through the dictionary's in-place
    /// access, as its getter (`graph[id]?.outstanding`) would copy the whole summary, and
    /// an export asks on every value. Changes nothing.
    public mutating func outstanding(of id: NodeID) -> Demand? {
        Self.outstanding(in: &nodes[id])
    }

    private static func outstanding(in node: inout NodeSummary?) -> Demand? { node?.outstanding }

    /// Whether stage `id` is in the graph (without copying it out).
    public func contains(_ id: NodeID) -> Bool { nodes.index(forKey: id) != nil }

    /// The stages that forward to `id` (type erasure: an `AnyPublisher`'s box), in the
    /// order they began to: each mirrors `id`'s events.
    public func mirrors(of id: NodeID) -> [NodeID] {
        mirrors.isEmpty ? [] : mirrors[id] ?? []
    }

    /// Every stage, each after its downstream: roots in the order they were created,
    /// each followed by its upstreams depth first, in the order they came.
    ///
    /// ```swift
    /// // #1 Sink ← #2 Map ← #3 Just, and #4 Sink ← #5 Just
    /// graph.treeOrder()   // [1, 2, 3, 4, 5]
    /// ```
    public func treeOrder() -> [NodeID] {
        var order: [NodeID] = []
        order.reserveCapacity(nodes.count)
        var stack = Array(roots.reversed())
        while let id = stack.popLast() {
            order.append(id)
            stack.append(contentsOf: (nodes[id]?.children ?? []).reversed())
        }
        return order
    }

    // MARK: - Folding

    /// Starts over from a snapshot. Links between stages are rebuilt from each stage's
    /// own fields, after every stage is in place (an adopted stage's parent can be newer
    /// than the stage).
    public mutating func load(_ snapshot: GraphSnapshot) {
        self = Graph()
        for var node in snapshot.nodes {
            node.children = []
            node.sharers = []
            node.feeders = []
            node.feeds = []
            node.forwardsTo = nil
            nodes[node.id] = node
            index(publisherOf: node)
        }
        for state in snapshot.nodes {
            if let parent = state.parent, let p = nodes.index(forKey: parent), parent != state.id {
                nodes.values[p].children.append(state.id)
                // A snapshot from the wire carries no roles: learnt again from the links.
                if state.mergeRole == .none {
                    let role = mergeRole(of: state, under: nodes.values[p])
                    if role != .none { nodes[state.id]?.mergeRole = role }
                }
            } else {
                nodes[state.id]?.parent = nil
                roots.append(state.id)
            }
        }
        // An inner that joined a stream (a subject: ``MergeRole/stream``) is known at its
        // first value, by its subtree; one from the wire that had values before the snapshot
        // is known by its subtree now. Else a room's later messages would count as late
        // answers.
        for state in snapshot.nodes where state.values > 0 && state.mergeRole == .none {
            guard let i = nodes.index(forKey: state.id), nodes.values[i].mergeRole == .inner,
                  Self.isJoinedStream(state.id, in: self) else { continue }
            nodes.values[i].mergeRole = .stream
        }
        for state in snapshot.nodes {
            if let owner = state.subscriptionOwner { link(state.id, sharing: owner) }
            if let target = state.forwardsTo { forward(state.id, to: target) }
            for fed in state.feeds { feed(fed, from: state.id) }
        }
        owners = snapshot.owners
        dropped = snapshot.dropped
        sequence = snapshot.sequence
    }

    /// Folds a whole batch: each subscribe event adds its stage (from ``EventBatch/nodes``),
    /// every other event is applied, then what the batch says besides its events is taken
    /// (``finish(_:)``).
    public mutating func fold(_ batch: EventBatch) {
        batch.forEachEvent { event, newStage in
            if let newStage { insert(newStage) }
            apply(event)
        }
        finish(batch)
    }

    /// Takes what a batch says besides its events, once they are folded: the locations
    /// found for earlier stages, the probe's sequence and drop counts, and value texts
    /// from old recordings. (Applying an event counts it in ``sequence`` too, so a graph
    /// folded one event at a time, such as the history's between checkpoints, agrees
    /// with the probe's numbering.)
    public mutating func finish(_ batch: EventBatch) {
        locate(batch.locations)
        place(batch.codes)
        setLastValues(batch.trailer.lastValues)
        dropped = batch.trailer.dropped
        countDropped(batch.trailer.droppedByPipeline)
        sequence = batch.trailer.sequence
    }

    /// Gives stages the locations found for them after they were added; stages no
    /// longer in the graph (pruned) are skipped.
    public mutating func locate(_ found: [LocatedStage]) {
        for l in found {
            guard let index = nodes.index(forKey: l.node) else { continue }
            nodes.values[index].location = l.location
            nodes.values[index].frames = l.frames
            recorder.touch(l.node)
        }
    }

    /// Gives stages the places of their code found for them (``StageCode``); stages no
    /// longer in the graph (pruned) are skipped.
    public mutating func place(_ found: [StageCode]) {
        for c in found {
            guard let index = nodes.index(forKey: c.node) else { continue }
            nodes.values[index].code = c.code
            nodes.values[index].builtBy = c.builtBy
            recorder.touch(c.node)
        }
    }

    /// Sets the newest value text of these stages (recordings made before value texts
    /// travelled on their value events carry them per batch).
    public mutating func setLastValues(_ values: [NodeID: String]) {
        // The text is the batch's newest value's: it is "last", and none is newer.
        for (id, text) in values {
            update(id) { node in
                node.lastValue = text
                node.lastDescribedNanos = node.lastValueNanos
                node.undescribedSince = 0
            }
        }
    }

    /// Adds a new stage (its subscribe event; apply that event too, to count it). A
    /// stage whose downstream is unknown becomes a root. A known id is ignored.
    public mutating func insert(_ info: NodeInfo) {
        insert(NodeSummary(info: info))
    }

    /// Folds one event and counts it in ``sequence``. A subscribe adds nothing by itself
    /// (``insert(_:)`` does). Events for unknown stages (pruned, or from before a
    /// snapshot) are ignored.
    public mutating func apply(_ event: StageEvent) {
        sequence &+= 1
        switch event.kind {
        case .subscribe, .unknown:
            return
        case .forward:
            forward(event.node, to: event.other)
        case .adopt:
            adopt(event.node, under: event.other)
        case .feeds:
            feed(event.other, from: event.node)
        case .owned:
            guard nodes[event.node] != nil else { return }
            if owners[event.other] == nil { owners[event.other] = Owner(id: event.other, name: event.text) }
            recorder.owner(event.other)
            update(event.node) { $0.ownerID = event.other }
        case .ownerReleased:
            owners[event.other, default: Owner(id: event.other, name: event.text)].releasedNanos = event.time
            recorder.owner(event.other)
        case .contractBroken:
            update(event.node) { $0.contractBroken.append(event.text) }
        case .delivered:
            time(event)
        case .subscription:
            guard nodes.index(forKey: event.node) != nil else { return }
            let owner = event.other == 0 || event.other == event.node ? nil : event.other
            update(event.node) { node in
                if node.status == .subscribing { node.status = .active }
            }
            if let owner { link(event.node, sharing: owner) }
        case .request, .demand:
            // request(_:) goes to the shared subscription, so every stage passing it on
            // gets the demand; a demand returned from receive(_:) is one stage's.
            let returned = event.kind == .demand
            let request = DemandRequest(time: event.time, demand: event.demand, returned: returned)
            let change = { (node: inout NodeSummary) in
                node.requested = node.requested + request.demand
                node.noteRequest(request)
            }
            // The stage, then its sharers: its share group, without building it.
            update(event.node, change)
            if !returned { for id in sharers(of: event.node) { update(id, change) } }
        case .value:
            // A flatMap's input or an inner publisher's answer (``InnerAnswers``): known
            // by a byte of the stage's (or of a stage mirroring it).
            var merging: (stage: NodeID, role: MergeRole)?
            update(event.node) { node in
                node.values += 1
                node.lastValueNanos = event.time
                if event.value.isEmpty {
                    node.undescribedSince += 1
                } else {
                    node.lastEventValue = event.value
                    node.lastDescribedNanos = event.time
                    node.undescribedSince = 0
                }
                if node.status.isTerminal { node.afterEnd += 1 }
                if node.mergeRole != .none { merging = (node.id, node.mergeRole) }
            }
            time(event)
            if let merging { noteMerge(event, stage: merging.stage, role: merging.role) }
        case .finished:
            update(event.node) { node in
                if node.status.isTerminal { node.afterEnd += 1 }
                node.end(.finished, at: event.time)
            }
        case .failed:
            update(event.node) { node in
                guard !node.status.isTerminal else {
                    node.afterEnd += 1
                    return
                }
                node.end(.failed, at: event.time)
                node.error = event.text
            }
        case .cancelled:
            let cause = event.cause ?? .downstream
            let change = { (node: inout NodeSummary) in
                guard !node.status.isTerminal else { return }
                node.end(.cancelled, at: event.time)
                node.cause = cause
            }
            update(event.node, change)
            for id in sharers(of: event.node) { update(id, change) }
            if cause != .downstream { markOrphans(below: shareGroup(of: event.node)) }
        }
    }

    /// Whether a stage and everything upstream of it have ended.
    public func isEnded(_ id: NodeID) -> Bool {
        guard let node = nodes[id] else { return true }
        return node.status.isTerminal && node.children.allSatisfy { isEnded($0) }
    }

    /// The whole graph as a snapshot: what ``load(_:)`` turns back into this graph, but
    /// for a flatMap's ``InnerAnswers``, which keep only the inputs a live inner publisher
    /// was made for (``awaitedAnswers(of:)``).
    public func snapshot() -> GraphSnapshot {
        let stages = nodes.keys.sorted().compactMap { id -> NodeSummary? in
            guard var node = nodes[id] else { return nil }
            if node.innerAnswers?.inputs.isEmpty == false { node.innerAnswers = awaitedAnswers(of: node) }
            // Derived from the other stages' fields; load(_:) rebuilds them.
            node.children = []
            node.sharers = []
            node.feeders = []
            return node
        }
        return GraphSnapshot(nodes: stages, owners: owners, dropped: dropped, sequence: sequence)
    }

    // MARK: - Internals

    mutating func insert(_ node: NodeSummary) {
        guard nodes.index(forKey: node.id) == nil else { return }
        var node = node
        recorder.touch(node.id)
        if let parent = node.parent, let p = nodes.index(forKey: parent) {
            nodes.values[p].children.append(node.id)
            node.mergeRole = mergeRole(of: node, under: nodes.values[p])
            recorder.touch(parent)
        } else {
            node.parent = nil
            roots.append(node.id)
        }
        nodes[node.id] = node
        index(publisherOf: node)
    }

    /// In place by index: `nodes[id]?.field` copies the whole summary out and back.
    private mutating func link(_ id: NodeID, sharing owner: NodeID) {
        guard let i = nodes.index(forKey: id), let o = nodes.index(forKey: owner) else { return }
        nodes.values[i].subscriptionOwner = owner
        recorder.touch(id)
        recorder.touch(owner)
        if !nodes.values[o].sharers.contains(id) {
            nodes.values[o].sharers.append(id)
            nodes.values[o].sharers.sort()
        }
    }

    private mutating func forward(_ id: NodeID, to target: NodeID) {
        guard nodes[id] != nil, nodes[target] != nil else { return }
        nodes[id]?.forwardsTo = target
        recorder.touch(id)
        recorder.touch(target)
        mirrors[target, default: []].append(id)
    }

    /// Moves a root that turned out to have a downstream under it.
    private mutating func adopt(_ id: NodeID, under parent: NodeID) {
        guard nodes[id]?.parent == nil else { return }
        move(id, under: parent)
    }

    private mutating func move(_ id: NodeID, under parent: NodeID) {
        guard let node = nodes[id], nodes[parent] != nil, id != parent, !isAncestor(id, of: parent) else { return }
        recorder.touch(id)
        recorder.touch(parent)
        if let old = node.parent {
            nodes[old]?.children.removeAll { $0 == id }
            recorder.touch(old)
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
        recorder.touch(upstream)
        recorder.touch(stage)
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
                recorder.touch(p)
                child = p
                parent = node.parent
            }
        }
    }

    /// A stage and the stages that share its subscription object.
    private func shareGroup(of id: NodeID) -> [NodeID] {
        [id] + sharers(of: id)
    }

    /// The stages that share `id`'s subscription object, read in place (no copy of the
    /// summary, no array built).
    private func sharers(of id: NodeID) -> [NodeID] {
        guard let i = nodes.index(forKey: id) else { return [] }
        return nodes.values[i].sharers
    }

    /// Changes a stage in place (one hash lookup), and the stages mirroring it.
    private mutating func update(_ id: NodeID, _ change: (inout NodeSummary) -> Void) {
        guard let index = nodes.index(forKey: id) else { return }
        change(&nodes.values[index])
        recorder.touch(id)
        guard !mirrors.isEmpty, let mirroring = mirrors[id] else { return }
        for mirror in mirroring {
            if let i = nodes.index(forKey: mirror) {
                change(&nodes.values[i])
                recorder.touch(mirror)
            }
        }
    }

    mutating func remove(subtree id: NodeID) {
        guard let node = nodes.removeValue(forKey: id) else { return }
        recorder.remove(id)
        mirrors[id] = nil
        unindex(publisherOf: node)
        for fed in node.feeds {
            nodes[fed]?.feeders.removeAll { $0 == id }
            recorder.touch(fed)
        }
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
