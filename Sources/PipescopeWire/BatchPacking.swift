import PipescopeGraph

/// Converts between the domain's ``EventBatch`` (one struct per event, what the graph
/// folds) and the ``WirePackedBatch`` that travels (columns, strings by id).
///
/// See `PackedBatch` in Resources/pipescope.proto for the layout and why it is so.
///
/// ```swift
/// var table = StringTable()
/// let packed = BatchPacking.pack(batch, table: &table)          // the probe, writing a frame
/// var peer = StringTable()
/// let same = try BatchPacking.unpack(packed, table: &peer)      // the inspector, reading it
/// ```
public enum BatchPacking {
    /// Packs `batch`, adding its new names to `table` and to the packed batch.
    ///
    /// Columns are built in local arrays and assigned once: the generated message keeps
    /// its fields in copy-on-write storage, where appending field by field would copy a
    /// column on every append.
    public static func pack(_ batch: EventBatch, table: inout StringTable) -> WirePackedBatch {
        var p = WirePackedBatch()
        if table.needsReset(forUpTo: batch.nodes.count * 4 + locationStrings(batch)) {
            table.removeAll()
            p.resetStrings = true
        }
        var added: [String] = []
        let infos = batch.nodes
        var ids: [UInt64] = [], parents: [UInt64] = [], created: [Int64] = []
        var operators: [UInt32] = [], types: [UInt32] = [], subscribers: [UInt32] = [], threads: [UInt32] = []
        ids.reserveCapacity(infos.count)
        for info in infos {
            ids.append(info.id)
            parents.append(info.parent ?? 0)
            operators.append(table.id(for: info.operatorName, added: &added))
            types.append(table.id(for: info.publisherType, added: &added))
            subscribers.append(table.id(for: info.subscriber, added: &added))
            threads.append(table.id(for: info.thread, added: &added))
            created.append(info.createdNanos)
        }
        packLocations(batch, into: &p, table: &table, added: &added)
        p.nodeIds = ids
        p.nodeParents = parents
        p.nodeOperators = operators
        p.nodePublisherTypes = types
        p.nodeSubscribers = subscribers
        p.nodeThreads = threads
        p.nodeCreatedNs = created

        let events = batch.events
        var kinds: [UInt32] = [], nodeDeltas: [Int64] = [], timeDeltas: [Int64] = []
        var demands: [Int64] = [], others: [UInt64] = [], causes: [UInt32] = []
        var textEvents: [UInt32] = [], texts: [String] = []
        var causeDeltas: [UInt64] = [], eventThreads: [UInt32] = [], selfNanos: [UInt64] = [], totalNanos: [UInt64] = []
        var values = ValueColumns.Writer(capacity: events.count)
        kinds.reserveCapacity(events.count)
        nodeDeltas.reserveCapacity(events.count)
        timeDeltas.reserveCapacity(events.count)
        let base = events.first?.time ?? 0
        var node: UInt64 = 0
        var time = base
        // Most events are on the thread of the one before: its id is looked up once.
        var thread: String?
        var threadID: UInt32 = 0
        var measured = 0
        // The cause and timing columns are made only once an entry is not 0: a batch
        // without causes, threads or timings (a test's, a recording's old events) then
        // costs no appends for them. Until then these count the zeros owed.
        var causedSoFar = 0, timedSoFar = 0
        var anyCaused = false
        // Fields are read in place (`events[index].node`): a copy of the whole event per
        // event was a fifth of the packing's time.
        for index in events.indices {
            let kind = events[index].kind
            kinds.append(UInt32(kind.rawValue))
            nodeDeltas.append(Int64(bitPattern: events[index].node &- node))
            timeDeltas.append(events[index].time &- time)
            node = events[index].node
            time = events[index].time
            let payload = Self.payload(of: kind)
            switch payload.field {
            case .demand: demands.append(events[index].demand.wire)
            case .other: others.append(events[index].other)
            case .cause: causes.append(UInt32(events[index].cause?.code ?? 0))
            case .none: break
            }
            if payload.caused {
                let linked = events[index].causedBy != 0 && events[index].causedBy < events[index].id
                let delta = linked ? events[index].id - events[index].causedBy : 0
                if events[index].thread != thread {
                    thread = events[index].thread
                    threadID = table.id(for: events[index].thread, added: &added)
                }
                if !anyCaused, delta != 0 || threadID != 0 {
                    anyCaused = true
                    causeDeltas = Array(repeating: 0, count: causedSoFar)
                    eventThreads = Array(repeating: 0, count: causedSoFar)
                    causeDeltas.reserveCapacity(events.count)
                    eventThreads.reserveCapacity(events.count)
                }
                if anyCaused {
                    causeDeltas.append(delta)
                    eventThreads.append(threadID)
                }
                causedSoFar += 1
            }
            if payload.timed {
                if events[index].totalNanos > 0 || events[index].selfNanos > 0 {
                    if measured == 0 {
                        selfNanos = Array(repeating: 0, count: timedSoFar)
                        totalNanos = Array(repeating: 0, count: timedSoFar)
                        selfNanos.reserveCapacity(events.count)
                        totalNanos.reserveCapacity(events.count)
                    }
                    measured += 1
                }
                if measured > 0 {
                    selfNanos.append(UInt64(max(0, events[index].selfNanos)))
                    totalNanos.append(UInt64(max(0, events[index].totalNanos)))
                }
                timedSoFar += 1
            }
            // A VALUE event's scalar travels in the value columns; words in the texts.
            if kind == .value, values.append(events[index].value) { continue }
            if !events[index].value.isEmpty {
                textEvents.append(UInt32(index))
                texts.append(events[index].text)
            }
        }
        p.baseTimeNs = base
        if let runs = ColumnRuns.shorter(kinds) { p.kindRuns = runs } else { p.kinds = kinds }
        p.nodeDeltas = nodeDeltas
        p.timeDeltas = timeDeltas
        p.demands = demands
        p.others = others
        p.causes = causes
        p.textEvents = textEvents
        p.texts = texts
        values.finish(into: &p)
        // A batch with no cause, thread or timing at all (a recording's old events, a
        // test's) leaves the columns out, as a probe that predates them does.
        if anyCaused {
            if let runs = ColumnRuns.shorter(causeDeltas) { p.causeRuns = runs } else { p.causeDeltas = causeDeltas }
            if let runs = ColumnRuns.shorter(eventThreads) { p.threadRuns = runs } else { p.eventThreads = eventThreads }
        }
        if measured > 0 { packTimes(selfNanos, totalNanos, measured: measured, into: &p) }
        p.newStrings = added
        p.trailer = batch.trailer.wire
        return p
    }

    /// Unpacks a batch, reading names from `table` after adding the batch's new ones.
    /// Columns that disagree, or names never defined, throw ``FrameError/malformed(_:)``.
    public static func unpack(_ p: WirePackedBatch, table: inout StringTable) throws -> EventBatch {
        try table.append(contentsOf: p.newStrings, reset: p.resetStrings)
        let ids = p.nodeIds, parents = p.nodeParents, operators = p.nodeOperators
        let types = p.nodePublisherTypes, subscribers = p.nodeSubscribers, threads = p.nodeThreads
        let created = p.nodeCreatedNs
        guard [parents.count, operators.count, types.count, subscribers.count, threads.count, created.count]
            .allSatisfy({ $0 == ids.count }) else {
            throw FrameError.malformed("a packed batch whose stage columns have different lengths")
        }
        var infos: [NodeInfo] = []
        infos.reserveCapacity(ids.count)
        for i in ids.indices {
            infos.append(NodeInfo(
                id: ids[i], parent: parents[i], operatorName: try table.string(operators[i]),
                publisherType: try table.string(types[i]), subscriber: try table.string(subscribers[i]),
                thread: try table.string(threads[i]), createdNanos: created[i]))
        }
        let nodeDeltas = p.nodeDeltas, timeDeltas = p.timeDeltas
        let kinds = try runsOrPlain(p.kindRuns, p.kinds, atMost: nodeDeltas.count, "kind")
        let demandColumn = p.demands, otherColumn = p.others, causeColumn = p.causes
        let textEvents = p.textEvents, texts = p.texts
        let count = kinds.count
        guard nodeDeltas.count == count, timeDeltas.count == count, textEvents.count == texts.count else {
            throw FrameError.malformed("a packed batch whose event columns have different lengths")
        }
        var events: [StageEvent] = []
        events.reserveCapacity(count)
        var node: UInt64 = 0
        var time = p.baseTimeNs
        var demands = 0, others = 0, causes = 0, caused = 0, causedKinds = 0
        let causeDeltas = try runsOrPlain(p.causeRuns, p.causeDeltas, atMost: count, "cause")
        let eventThreads = try runsOrPlain(p.threadRuns, p.eventThreads, atMost: count, "thread")
        guard eventThreads.count == causeDeltas.count else {
            throw FrameError.malformed("a packed batch whose cause or timing columns have different lengths")
        }
        var times = try TimeColumns(p, events: count)
        var values = try ValueColumns.Reader(p)
        // Numbers count back from the trailer's sequence (as EventBatch.numbered does).
        let firstID = EventBatch.firstID(sequence: p.domainTrailer.sequence, count: count) ?? 0
        var threadID: UInt32?
        var thread = ""
        for i in 0..<count {
            let raw = Int(kinds[i])
            let kind = raw < Self.kinds.count ? Self.kinds[raw] : .unknown
            node = node &+ UInt64(bitPattern: nodeDeltas[i])
            time = time &+ timeDeltas[i]
            // Appended first and filled in place: appending a finished event copied it
            // whole (its strings retained, then released with the original).
            events.append(StageEvent(kind, node: node, time: time, value: .none))
            let n = events.count - 1
            let payload = Self.payload(of: kind)
            switch payload.field {
            case .demand:
                guard demands < demandColumn.count else { throw shortColumn("demands") }
                events[n].demand = Demand(wire: demandColumn[demands])
                demands += 1
            case .other:
                guard others < otherColumn.count else { throw shortColumn("others") }
                events[n].other = otherColumn[others]
                others += 1
            case .cause:
                guard causes < causeColumn.count else { throw shortColumn("causes") }
                let cause = causeColumn[causes]
                events[n].cause = cause <= UInt32(UInt8.max) ? CancelCause(code: UInt8(cause)) : nil
                causes += 1
            case .none: break
            }
            if firstID != 0 { events[n].id = firstID + UInt64(i) }
            if payload.caused {
                causedKinds += 1
                if caused < causeDeltas.count {
                    let delta = causeDeltas[caused]
                    if delta != 0, delta < events[n].id { events[n].causedBy = events[n].id - delta }
                    let id = eventThreads[caused]
                    if id != threadID {
                        thread = try table.string(id)
                        threadID = id
                    }
                    events[n].thread = thread
                    caused += 1
                }
            }
            if payload.timed { try times.next(into: &events[n]) }
            if kind == .value { events[n].value = try values.next() }
        }
        guard demands == demandColumn.count, others == otherColumn.count, causes == causeColumn.count,
              causeDeltas.isEmpty || causeDeltas.count == causedKinds else {
            throw FrameError.malformed("a packed batch with more column entries than events of their kinds")
        }
        try times.finish()
        try values.finish()
        for (index, text) in zip(textEvents, texts) {
            guard Int(index) < count else {
                throw FrameError.malformed("a packed batch with text for event \(index) of \(count)")
            }
            guard !events[Int(index)].value.isScalar else {
                throw FrameError.malformed("a packed batch with both a scalar and a text for event \(index)")
            }
            events[Int(index)].text = text
        }
        var batch = EventBatch(nodes: infos, events: events, trailer: p.domainTrailer)
        try unpackLocations(p, into: &batch, table: table)
        return batch
    }

    // The kinds by wire number, and what each carries, looked up in arrays: through
    // `EventKind(wireNumber:)` (generic, in another module) and `payload` (a call into
    // it) they took a third of the unpacking's time.
    private static let kinds: [EventKind] = (0...UInt8.max).map { EventKind(rawValue: $0) ?? .unknown }
    private static let payloads: [EventKind.Payload] = (0...UInt8.max).map {
        (EventKind(rawValue: $0) ?? .unknown).payload
    }

    @inline(__always)
    private static func payload(of kind: EventKind) -> EventKind.Payload { payloads[Int(kind.rawValue)] }

    /// A column sent as runs (version 4) or plain; both at once is malformed.
    private static func runsOrPlain<T: FixedWidthInteger>(_ runs: [T], _ plain: [T], atMost limit: Int,
                                                          _ name: String) throws -> [T] {
        if runs.isEmpty { return plain }
        guard plain.isEmpty else {
            throw FrameError.malformed("a packed batch with both a \(name) column and its runs")
        }
        return try ColumnRuns.expand(runs, atMost: limit, name)
    }

    private static func shortColumn(_ name: String) -> FrameError {
        .malformed("a packed batch with fewer \(name) than events that need one")
    }
}
