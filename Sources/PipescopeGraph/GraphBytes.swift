/// A whole ``Graph`` as bytes and back, exactly: every stage with every field the fold
/// keeps (its delivery times, a flatMap's answers, recent requests), the owners, the
/// drop counts, the indexes the fold keeps beside the stages (mirrors, stages by
/// publisher), the stage numbers never seen begin, and the pauses. Unlike ``Graph/snapshot()``, nothing is left out or learnt again: the
/// graph read back equals the one written (`==`), so a history can keep a checkpoint on
/// disk and fold on from it as from the one it wrote.
///
/// Not a wire format: the bytes are read by the process that wrote them (a history's
/// spill files), so the layout may change between versions.
///
/// ```swift
/// let bytes = GraphBytes.encode(graph)
/// assert(GraphBytes.decode(bytes) == graph)
/// ```
public enum GraphBytes {
    /// The first bytes of every encoded graph: a record read from the wrong place fails.
    static let magic: UInt64 = 0x5053_4752_4150_4831  // "PSGRAPH1"

    public static func encode(_ graph: Graph) -> [UInt8] {
        var out = ByteWriter(capacity: 64 + graph.nodes.count * 200)
        out.put(magic)
        out.put(graph.nodes.count)
        for node in graph.nodes.values { put(node, &out) }
        out.put(graph.roots)
        out.put(graph.dropped)
        out.put(graph.sequence)
        out.put(graph.droppedByPipeline.count)
        for (id, count) in graph.droppedByPipeline {
            out.put(id)
            out.put(count)
        }
        out.put(graph.owners.count)
        for owner in graph.owners.values {
            out.put(owner.id)
            out.put(owner.name)
            out.put(owner.releasedNanos)
        }
        for index in [graph.mirrors, graph.publishers] {
            out.put(index.count)
            for (key, ids) in index {
                out.put(key)
                out.put(ids)
            }
        }
        out.put(graph.lostStarts.highest)
        out.put(graph.lostStarts.gaps.count)
        for gap in graph.lostStarts.gaps {
            out.put(gap.lowerBound)
            out.put(gap.upperBound)
        }
        out.put(graph.pauses.spans.count)
        for span in graph.pauses.spans {
            out.put(span.fromNanos)
            out.put(span.toNanos)
        }
        return out.bytes
    }

    /// The graph `encode` wrote; nil for bytes it did not write (cut short, damaged).
    public static func decode(_ bytes: [UInt8]) -> Graph? {
        var reader = ByteReader(bytes)
        guard reader.number() == magic, let count = reader.count() else { return nil }
        var graph = Graph()
        graph.nodes.reserveCapacity(count)
        for _ in 0..<count {
            guard let node = node(&reader) else { return nil }
            graph.nodes[node.id] = node
        }
        guard let roots = reader.ids(), let dropped = reader.number(), let sequence = reader.number(),
              let drops = reader.count() else { return nil }
        graph.roots = roots
        graph.dropped = dropped
        graph.sequence = sequence
        for _ in 0..<drops {
            guard let id = reader.number(), let n = reader.number() else { return nil }
            graph.droppedByPipeline[id] = n
        }
        guard let owners = reader.count() else { return nil }
        for _ in 0..<owners {
            guard let id = reader.number(), let name = reader.string(), let released = reader.optionalSigned()
            else { return nil }
            graph.owners[id] = Owner(id: id, name: name, releasedNanos: released)
        }
        var indexes: [[UInt64: [NodeID]]] = []
        for _ in 0..<2 {
            guard let n = reader.count() else { return nil }
            var index: [UInt64: [NodeID]] = [:]
            index.reserveCapacity(n)
            for _ in 0..<n {
                guard let key = reader.number(), let ids = reader.ids() else { return nil }
                index[key] = ids
            }
            indexes.append(index)
        }
        graph.mirrors = indexes[0]
        graph.publishers = indexes[1]
        guard let highest = reader.number(), let gaps = reader.count() else { return nil }
        graph.lostStarts.highest = highest
        for _ in 0..<gaps {
            guard let lower = reader.number(), let upper = reader.number(), lower <= upper else { return nil }
            graph.lostStarts.gaps.append(lower..<upper)
        }
        guard let pauses = reader.count() else { return nil }
        for _ in 0..<pauses {
            guard let from = reader.signed(), let to = reader.signed() else { return nil }
            graph.pauses.spans.append(PauseInterval(fromNanos: from, toNanos: to))
        }
        guard reader.atEnd else { return nil }
        return graph
    }

    // MARK: - A stage

    private static func put(_ node: NodeSummary, _ out: inout ByteWriter) {
        // What it is.
        out.put(node.id)
        out.put(node.operatorName)
        out.put(node.publisherType)
        out.put(node.subscriber)
        out.put(node.thread)
        out.put(node.createdNanos)
        put(node.location, &out)
        out.put(node.frames.count)
        for frame in node.frames { put(frame, &out) }
        out.put(node.madeFor)
        out.put(node.publisher)
        out.put(node.subjectSource)
        put(node.code, &out)
        put(node.builtBy, &out)
        out.put(node.error)
        out.put(node.sharers)
        out.put(node.feeds)
        out.put(node.feeders)
        out.put(node.ownerID)
        out.put(node.contractBroken.count)
        for text in node.contractBroken { out.put(text) }
        // What has happened to it.
        out.put(node.parent)
        out.put(node.subscriptionOwner)
        out.put(node.forwardsTo)
        out.put(node.endedNanos)
        out.put(node.lastValueNanos)
        out.put(node.lastDescribedNanos)
        out.put(node.times != nil)
        if let times = node.times {
            for histogram in [times.own, times.withDownstream, times.sink] { put(histogram, &out) }
        }
        out.put(node.innerAnswers != nil)
        if let answers = node.innerAnswers { put(answers, &out) }
        out.put(node.mergeRole.rawValue)
        out.put(node.children)
        out.put(UInt8(NodeStatus.allCases.firstIndex(of: node.status) ?? 0))
        out.put(node.cause?.code ?? 0)
        out.put(node.requested.wire)
        out.put(node.values)
        put(node.lastEventValue, &out)
        out.put(node.orphaned)
        out.put(node.afterEnd)
        out.put(node.undescribedSince)
        out.put(node.recentRequests.count)
        for request in node.recentRequests {
            out.put(request.time)
            out.put(request.demand.wire)
            out.put(request.returned)
        }
    }

    private static func node(_ r: inout ByteReader) -> NodeSummary? {
        guard let id = r.number(), let op = r.string(), let type = r.string(), let subscriber = r.string(),
              let thread = r.string(), let created = r.signed(), let location = optionalLocation(&r),
              let frameCount = r.count() else { return nil }
        var frames: [SourceLocation] = []
        for _ in 0..<frameCount {
            guard let frame = self.location(&r) else { return nil }
            frames.append(frame)
        }
        guard let madeFor = r.number(), let publisher = r.number(), let subject = r.bool(),
              let code = optionalLocation(&r), let builtBy = optionalLocation(&r), let error = r.optionalString(),
              let sharers = r.ids(), let feeds = r.ids(), let feeders = r.ids(), let ownerID = r.optionalNumber(),
              let broken = r.count() else { return nil }
        var node = NodeSummary(info: NodeInfo(id: id, operatorName: op, publisherType: type, subscriber: subscriber,
                                              thread: thread, createdNanos: created, location: location,
                                              frames: frames, madeFor: madeFor, publisher: publisher,
                                              subjectSource: subject, code: code, builtBy: builtBy))
        node.error = error
        node.sharers = sharers
        node.feeds = feeds
        node.feeders = feeders
        node.ownerID = ownerID
        for _ in 0..<broken {
            guard let text = r.string() else { return nil }
            node.contractBroken.append(text)
        }
        guard let parent = r.optionalNumber(), let owner = r.optionalNumber(), let forwards = r.optionalNumber(),
              let ended = r.optionalSigned(), let lastValue = r.optionalSigned(),
              let lastDescribed = r.optionalSigned(), let hasTimes = r.bool() else { return nil }
        node.parent = parent
        node.subscriptionOwner = owner
        node.forwardsTo = forwards
        node.endedNanos = ended
        node.lastValueNanos = lastValue
        node.lastDescribedNanos = lastDescribed
        if hasTimes {
            guard let own = histogram(&r), let withDownstream = histogram(&r), let sink = histogram(&r)
            else { return nil }
            var times = StageTimes()
            times.own = own
            times.withDownstream = withDownstream
            times.sink = sink
            node.times = times
        }
        guard let hasAnswers = r.bool() else { return nil }
        if hasAnswers {
            guard let answers = answers(&r) else { return nil }
            node.innerAnswers = answers
        }
        guard let role = r.byte().flatMap(MergeRole.init(rawValue:)), let children = r.ids(),
              let status = r.byte(), Int(status) < NodeStatus.allCases.count, let cause = r.byte(),
              let requested = r.signed(), let values = r.signed(), let value = eventValue(&r),
              let orphaned = r.bool(), let afterEnd = r.signed(), let undescribed = r.signed(),
              let requests = r.count() else { return nil }
        node.mergeRole = role
        node.children = children
        node.status = NodeStatus.allCases[Int(status)]
        node.cause = CancelCause(code: cause)
        node.requested = Demand(wire: requested)
        node.values = Int(values)
        node.lastEventValue = value
        node.orphaned = orphaned
        node.afterEnd = Int(afterEnd)
        node.undescribedSince = Int(undescribed)
        for _ in 0..<requests {
            guard let time = r.signed(), let demand = r.signed(), let returned = r.bool() else { return nil }
            node.recentRequests.append(DemandRequest(time: time, demand: Demand(wire: demand), returned: returned))
        }
        return node
    }

    // MARK: - What a stage holds

    private static func put(_ l: SourceLocation, _ out: inout ByteWriter) {
        out.put(l.file)
        out.put(l.line.map { Int64($0) })
        out.put(l.function)
        out.put(l.image)
        out.put(l.offset)
    }

    private static func put(_ l: SourceLocation?, _ out: inout ByteWriter) {
        out.put(l != nil)
        if let l { put(l, &out) }
    }

    private static func location(_ r: inout ByteReader) -> SourceLocation? {
        guard let file = r.optionalString(), let line = r.optionalSigned(), let function = r.optionalString(),
              let image = r.optionalString(), let offset = r.optionalNumber() else { return nil }
        return SourceLocation(file: file, line: line.map { Int($0) }, function: function, image: image, offset: offset)
    }

    private static func optionalLocation(_ r: inout ByteReader) -> SourceLocation?? {
        guard let present = r.bool() else { return nil }
        guard present else { return .some(nil) }
        guard let l = location(&r) else { return nil }
        return .some(l)
    }

    private static func put(_ h: TimeHistogram, _ out: inout ByteWriter) {
        out.put(h.count)
        out.put(h.max)
        out.put(h.total)
        let buckets = h.buckets
        out.put(buckets.first)
        out.put(buckets.counts.count)
        for n in buckets.counts { out.put(UInt64(n)) }
    }

    private static func histogram(_ r: inout ByteReader) -> TimeHistogram? {
        guard let count = r.signed(), let max = r.signed(), let total = r.signed(), let first = r.signed(),
              let n = r.count() else { return nil }
        var counts: [UInt32] = []
        counts.reserveCapacity(n)
        for _ in 0..<n {
            guard let c = r.number() else { return nil }
            counts.append(UInt32(truncatingIfNeeded: c))
        }
        return TimeHistogram(count: Int(count), max: max, total: total, first: Int(first), counts: counts)
    }

    private static func put(_ a: InnerAnswers, _ out: inout ByteWriter) {
        out.put(a.inputs.count)
        for input in a.inputs { put(input, &out) }
        out.put(a.newest != nil)
        if let newest = a.newest { put(newest, &out) }
        out.put(a.lateCount)
        out.put(a.lastLate != nil)
        if let late = a.lastLate {
            put(late.stale, &out)
            put(late.fresh, &out)
            out.put(late.stage)
            out.put(late.time)
        }
        out.put(a.fromCollection)
    }

    private static func answers(_ r: inout ByteReader) -> InnerAnswers? {
        guard let n = r.count() else { return nil }
        var inputs: [InnerAnswers.Input] = []
        for _ in 0..<n {
            guard let i = input(&r) else { return nil }
            inputs.append(i)
        }
        guard let hasNewest = r.bool() else { return nil }
        var newest: InnerAnswers.Input?
        if hasNewest {
            guard let i = input(&r) else { return nil }
            newest = i
        }
        guard let lateCount = r.signed(), let hasLate = r.bool() else { return nil }
        var late: InnerAnswers.Late?
        if hasLate {
            guard let stale = input(&r), let fresh = input(&r), let stage = r.number(), let time = r.signed()
            else { return nil }
            late = InnerAnswers.Late(stale: stale, fresh: fresh, stage: stage, time: time)
        }
        guard let fromCollection = r.bool() else { return nil }
        return InnerAnswers(inputs: inputs, newest: newest, lateCount: Int(lateCount), lastLate: late,
                            fromCollection: fromCollection)
    }

    private static func put(_ i: InnerAnswers.Input, _ out: inout ByteWriter) {
        out.put(i.event)
        put(i.value, &out)
        out.put(i.causedBy)
    }

    private static func input(_ r: inout ByteReader) -> InnerAnswers.Input? {
        guard let event = r.number(), let value = eventValue(&r), let causedBy = r.number() else { return nil }
        return InnerAnswers.Input(event: event, value: value, causedBy: causedBy)
    }

    /// A value as its case and its bits: a number stays a number (`==` on values
    /// compares words, which would not tell `.int(42)` from `.text("42")`).
    private static func put(_ v: EventValue, _ out: inout ByteWriter) {
        switch v {
        case .none: out.put(UInt8(0))
        case .text(let s): out.put(UInt8(1)); out.put(s)
        case .int(let n): out.put(UInt8(2)); out.put(n)
        case .uint(let n): out.put(UInt8(3)); out.put(n)
        case .double(let d): out.put(UInt8(4)); out.put(d.bitPattern)
        case .float(let f): out.put(UInt8(5)); out.put(UInt64(f.bitPattern))
        case .bool(let b): out.put(UInt8(6)); out.put(b)
        case .void: out.put(UInt8(7))
        }
    }

    private static func eventValue(_ r: inout ByteReader) -> EventValue? {
        guard let tag = r.byte() else { return nil }
        switch tag {
        case 0: return EventValue.none
        case 1: return r.string().map { .text($0) }
        case 2: return r.signed().map { .int($0) }
        case 3: return r.number().map { .uint($0) }
        case 4: return r.number().map { .double(Double(bitPattern: $0)) }
        case 5: return r.number().map { .float(Float(bitPattern: UInt32(truncatingIfNeeded: $0))) }
        case 6: return r.bool().map { .bool($0) }
        case 7: return .void
        default: return nil
        }
    }
}
