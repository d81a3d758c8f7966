import PipescopeGraph

// Stages and snapshots between the domain (PipescopeGraph) and the wire.

extension NodeInfo {
    public init(wire info: WireNodeInfo) {
        self.init(id: info.id, parent: info.parent, operatorName: info.operator, publisherType: info.publisherType,
                  subscriber: info.subscriber, thread: info.thread, createdNanos: info.createdNs,
                  location: info.hasLocation ? SourceLocation(wire: info.location) : nil,
                  frames: info.frames.map(SourceLocation.init(wire:)), madeFor: info.madeForEvent,
                  publisher: info.publisher, subjectSource: info.subjectSource,
                  code: info.hasCode ? SourceLocation(wire: info.code) : nil,
                  builtBy: info.hasBuiltBy ? SourceLocation(wire: info.builtBy) : nil)
    }

    public var wire: WireNodeInfo {
        var i = WireNodeInfo()
        i.id = id
        i.parent = parent ?? 0
        i.operator = operatorName
        i.publisherType = publisherType
        i.subscriber = subscriber
        i.thread = thread
        i.createdNs = createdNanos
        if let location { i.location = location.wire }
        i.frames = frames.map(\.wire)
        i.madeForEvent = madeFor
        i.publisher = publisher
        i.subjectSource = subjectSource
        if let code { i.code = code.wire }
        if let builtBy { i.builtBy = builtBy.wire }
        return i
    }
}

extension SourceLocation {
    public init(wire l: WireSourceLocation) {
        self.init(file: l.file, line: Int(l.line), function: l.function, image: l.image,
                  offset: l.offset == 0 ? nil : l.offset)
    }

    public var wire: WireSourceLocation {
        var l = WireSourceLocation()
        l.file = file ?? ""
        l.line = UInt32(clamping: line ?? 0)
        l.function = function ?? ""
        l.image = image ?? ""
        l.offset = offset ?? 0
        return l
    }
}

extension NodeSummary {
    /// A stage as a snapshot carries it. Links to other stages that the graph derives
    /// (children, sharers, feeders) are rebuilt by ``Graph/load(_:)``.
    public init(wire s: WireNodeState) {
        self.init(info: NodeInfo(wire: s.info))
        status = NodeStatus(wire: s.status)
        cause = CancelCause(wire: s.cause)
        error = s.error.isEmpty && s.status != .failed ? nil : s.error
        requested = Demand(wire: s.requested)
        values = Int(s.values)
        lastValue = s.hasLastValue_p ? s.lastValue : nil
        subscriptionOwner = s.subscriptionOwner == 0 ? nil : s.subscriptionOwner
        endedNanos = s.endedNs == 0 ? nil : s.endedNs
        forwardsTo = s.forwardsTo == 0 ? nil : s.forwardsTo
        orphaned = s.orphaned
        feeds = s.feeds
        afterEnd = Int(s.afterEnd)
        lastValueNanos = s.lastValueNs == 0 ? nil : s.lastValueNs
        lastDescribedNanos = s.lastDescribedNs == 0 ? nil : s.lastDescribedNs
        undescribedSince = Int(clamping: max(0, s.undescribedSince))
        ownerID = s.owner == 0 ? nil : s.owner
        contractBroken = s.contractBroken
        recentRequests = s.recentRequests.suffix(Self.recentRequestLimit).map {
            DemandRequest(time: $0.timeNs, demand: Demand(wire: $0.demand), returned: $0.returned)
        }
        if s.hasOwnTime || s.hasWithDownstreamTime || s.hasSinkTime {
            var t = StageTimes()
            t.own = TimeHistogram(wire: s.ownTime)
            t.withDownstream = TimeHistogram(wire: s.withDownstreamTime)
            t.sink = TimeHistogram(wire: s.sinkTime)
            times = t
        }
        if s.hasInnerAnswers { innerAnswers = InnerAnswers(wire: s.innerAnswers) }
    }

    public var wire: WireNodeState {
        var s = WireNodeState()
        s.info = info.wire
        s.status = status.wire
        s.cause = cause?.wire ?? .causeNone
        s.error = error ?? ""
        s.requested = requested.wire
        s.values = Int64(values)
        s.hasLastValue_p = lastValue != nil
        s.lastValue = lastValue ?? ""
        s.subscriptionOwner = subscriptionOwner ?? 0
        s.endedNs = endedNanos ?? 0
        s.forwardsTo = forwardsTo ?? 0
        s.orphaned = orphaned
        s.feeds = feeds
        s.afterEnd = Int64(afterEnd)
        s.lastValueNs = lastValueNanos ?? 0
        s.lastDescribedNs = lastDescribedNanos ?? 0
        s.undescribedSince = Int64(undescribedSince)
        s.owner = ownerID ?? 0
        s.contractBroken = contractBroken
        s.recentRequests = recentRequests.map { r in
            .with { $0.timeNs = r.time; $0.demand = r.demand.wire; $0.returned = r.returned }
        }
        if let times {
            s.ownTime = times.own.wire
            s.withDownstreamTime = times.withDownstream.wire
            s.sinkTime = times.sink.wire
        }
        if let innerAnswers { s.innerAnswers = innerAnswers.wire }
        return s
    }
}

extension TimeHistogram {
    init(wire h: WireTimeHistogram) {
        self.init(count: Int(clamping: h.count), max: h.max, total: h.total, first: Int(h.first), counts: h.counts)
    }

    var wire: WireTimeHistogram {
        var h = WireTimeHistogram()
        h.count = UInt64(count)
        h.max = max
        h.total = total
        h.first = UInt32(buckets.first)
        h.counts = buckets.counts
        return h
    }
}

extension GraphSnapshot {
    /// The snapshot a probe sent. Its recent events (``recent``) whose columns disagree
    /// throw ``FrameError/malformed(_:)``.
    public init(wire s: WireSnapshot) throws {
        var owners: [UInt64: Owner] = [:]
        for o in s.owners { owners[o.id] = Owner(id: o.id, name: o.name, releasedNanos: o.releasedNs == 0 ? nil : o.releasedNs) }
        // Each stage names its owner too, so a snapshot's stage is never held by an owner the
        // snapshot does not know.
        for n in s.nodes where n.owner != 0 && owners[n.owner] == nil {
            owners[n.owner] = Owner(id: n.owner, name: n.ownerName)
        }
        self.init(nodes: s.nodes.map(NodeSummary.init(wire:)), owners: owners, dropped: s.dropped,
                  sequence: s.sequence, skippedEvents: s.skippedEvents,
                  recent: s.hasRecent ? try RecentCoding.events(s.recent) : [])
        locationsPending = s.locationsPending
        droppedByPipeline = BatchTrailer.drops(s.droppedByPipeline)
        // Pairs; a half pair or an empty range (a peer's mistake) is left out.
        stageNumberGaps = stride(from: 0, to: s.stageNumberGaps.count - 1, by: 2).compactMap { i in
            let (start, end) = (s.stageNumberGaps[i], s.stageNumberGaps[i + 1])
            return start < end ? start ..< end : nil
        }
        highestStage = s.highestStage
    }

    /// The snapshot as it travels, without the string table (the stream adds it).
    public var wire: WireSnapshot {
        var s = WireSnapshot()
        s.nodes = nodes.map { node in
            var n = node.wire
            if let id = node.ownerID { n.ownerName = owners[id]?.name ?? "" }
            return n
        }
        s.owners = owners.keys.sorted().compactMap { id in
            owners[id].map { o in .with { $0.id = id; $0.name = o.name; $0.releasedNs = o.releasedNanos ?? 0 } }
        }
        s.dropped = dropped
        s.sequence = sequence
        s.skippedEvents = skippedEvents
        if !recent.isEmpty { s.recent = RecentCoding.wire(recent) }
        s.locationsPending = locationsPending
        s.droppedByPipeline = BatchTrailer.wire(droppedByPipeline)
        s.stageNumberGaps = stageNumberGaps.flatMap { [$0.lowerBound, $0.upperBound] }
        s.highestStage = highestStage
        return s
    }
}
