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
        if table.needsReset(forUpTo: batch.nodes.count * 4 + locationStrings(batch) + 6 * batch.codes.count) {
            table.removeAll()
            p.resetStrings = true
        }
        var added: [String] = []
        let infos = batch.nodes
        var ids: [UInt64] = [], parents: [UInt64] = [], created: [Int64] = []
        var operators: [UInt32] = [], types: [UInt32] = [], subscribers: [UInt32] = [], threads: [UInt32] = []
        // Inner publishers' made-for events: a column only once a stage has one (most
        // batches have none).
        var madeFor: [UInt64] = []
        var anyMadeFor = false
        var subjectSources: [UInt32] = [], anyPublisher = false
        ids.reserveCapacity(infos.count)
        for info in infos {
            if info.madeFor != 0, !anyMadeFor {
                anyMadeFor = true
                madeFor.reserveCapacity(infos.count)
                madeFor.append(contentsOf: repeatElement(0, count: ids.count))
            }
            if anyMadeFor { madeFor.append(info.madeFor) }
            if info.subjectSource { subjectSources.append(UInt32(ids.count)) }
            anyPublisher = anyPublisher || info.publisher != 0
            ids.append(info.id)
            parents.append(info.parent ?? 0)
            operators.append(table.id(for: info.operatorName, added: &added))
            types.append(table.id(for: info.publisherType, added: &added))
            subscribers.append(table.id(for: info.subscriber, added: &added))
            threads.append(table.id(for: info.thread, added: &added))
            created.append(info.createdNanos)
        }
        packLocations(batch, into: &p, table: &table, added: &added)
        packCodes(batch, into: &p, table: &table, added: &added)
        p.nodeIds = ids
        p.nodeParents = parents
        p.nodeOperators = operators
        p.nodePublisherTypes = types
        p.nodeSubscribers = subscribers
        p.nodeThreads = threads
        p.nodeCreatedNs = created
        p.nodeMadeForEvents = madeFor
        if anyPublisher { p.nodePublishers = infos.map(\.publisher) }
        p.nodeSubjectSources = subjectSources

        let events = batch.events
        let base = events.first?.time ?? 0
        // The columns every event has, made in one tight pass of their own and written
        // with no check per number: appended to in the loop below (and the deltas then
        // encoded in a pass of their own) they cost 8% more of the whole round trip's
        // instructions (callgrind, `TapProfile wire`).
        var kinds = [UInt32](repeating: 0, count: events.count)
        var nodeDeltas = ZigzagColumn.Writer(capacity: events.count)
        var timeDeltas = ZigzagColumn.Writer(capacity: events.count)
        kinds.withUnsafeMutableBufferPointer { kinds in
            var node: UInt64 = 0, time = base
            for i in events.indices {
                kinds[i] = UInt32(events[i].kind.rawValue)
                nodeDeltas.append(Int64(bitPattern: events[i].node &- node))
                timeDeltas.append(events[i].time &- time)
                node = events[i].node
                time = events[i].time
            }
        }
        p.nodeDeltas = nodeDeltas.finish()
        p.timeDeltas = timeDeltas.finish()
        var demands: [Int64] = [], others: [UInt64] = [], causes: [UInt32] = []
        var textEvents: [UInt32] = [], texts: [String] = []
        var causeDeltas: [UInt64] = [], eventThreads: [UInt32] = [], selfNanos: [UInt64] = [], totalNanos: [UInt64] = []
        var values = ValueColumns.Writer(capacity: events.count)
        // Most events are on the thread of the one before: its id is looked up once.
        var thread: String?
        var threadID: UInt32 = 0
        var measured = 0
        // The cause and timing columns are made only once an entry is not 0: a batch
        // without causes, threads or timings (a test's, a recording's old events) then
        // costs no appends for them. Until then these count the zeros owed.
        var causedSoFar = 0, timedSoFar = 0
        var anyCaused = false
        let payloadTable = Self.payloads
        // Fields are read in place (`events[index].node`), through the array's buffer: a
        // copy of the whole event per event would be a fifth of the packing's time, and
        // through the array each value would be copied out to be looked at.
        events.withUnsafeBufferPointer { events in
            for index in events.indices {
                let kind = events[index].kind
                let payload = payloadTable[Int(kind.rawValue)]
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
        }
        p.baseTimeNs = base
        if let runs = ColumnRuns.shorter(kinds) { p.kindRuns = runs } else { p.kinds = kinds }
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
        let madeFor = p.nodeMadeForEvents
        guard [parents.count, operators.count, types.count, subscribers.count, threads.count, created.count]
            .allSatisfy({ $0 == ids.count }), madeFor.isEmpty || madeFor.count == ids.count else {
            throw FrameError.malformed("a packed batch whose stage columns have different lengths")
        }
        let publishers = p.nodePublishers, subjectSources = p.nodeSubjectSources
        guard publishers.isEmpty || publishers.count == ids.count,
              subjectSources.allSatisfy({ Int($0) < ids.count }) else {
            throw FrameError.malformed("a packed batch whose stage publisher columns do not match its stages")
        }
        var infos: [NodeInfo] = []
        infos.reserveCapacity(ids.count)
        for i in ids.indices {
            infos.append(NodeInfo(
                id: ids[i], parent: parents[i], operatorName: try table.string(operators[i]),
                publisherType: try table.string(types[i]), subscriber: try table.string(subscribers[i]),
                thread: try table.string(threads[i]), createdNanos: created[i],
                madeFor: madeFor.isEmpty ? 0 : madeFor[i], publisher: publishers.isEmpty ? 0 : publishers[i]))
        }
        for i in subjectSources { infos[Int(i)].subjectSource = true }
        var nodeDeltas = ZigzagColumn.Reader(p.nodeDeltas, "node")
        var timeDeltas = ZigzagColumn.Reader(p.timeDeltas, "time")
        // Every event has a node delta of a byte or more: its bytes bound the events.
        let kinds = try runsOrPlain(p.kindRuns, p.kinds, atMost: nodeDeltas.byteCount, "kind")
        let demandColumn = p.demands, otherColumn = p.others, causeColumn = p.causes
        let textEvents = p.textEvents, texts = p.texts
        let count = kinds.count
        guard nodeDeltas.count == count, timeDeltas.count == count, textEvents.count == texts.count else {
            throw differentLengths
        }
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
        // The tables in locals: as statics they would be a `swift_once` check per event.
        let kindTable = Self.kinds, payloadTable = Self.payloads
        // Each event starts as an empty one of its kind, moved into its place, and is
        // filled in there through the buffer. Appending a finished event would copy it
        // whole (its strings retained, then released with the original), and filling it
        // through the array would check the array's uniqueness at every field.
        var events = try [StageEvent](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count {
                let raw = Int(kinds[i])
                let kind = raw < kindTable.count ? kindTable[raw] : .unknown
                guard let nodeDelta = try nodeDeltas.next(), let timeDelta = try timeDeltas.next() else {
                    throw differentLengths
                }
                node = node &+ UInt64(bitPattern: nodeDelta)
                time = time &+ timeDelta
                let value = kind == .value ? try values.next() : .none
                buffer.initializeElement(at: i, to: StageEvent(kind, node: node, time: time, value: value))
                initialized = i + 1
                let payload = payloadTable[Int(kind.rawValue)]
                switch payload.field {
                case .demand:
                    guard demands < demandColumn.count else { throw shortColumn("demands") }
                    buffer[i].demand = Demand(wire: demandColumn[demands])
                    demands += 1
                case .other:
                    guard others < otherColumn.count else { throw shortColumn("others") }
                    buffer[i].other = otherColumn[others]
                    others += 1
                case .cause:
                    guard causes < causeColumn.count else { throw shortColumn("causes") }
                    let cause = causeColumn[causes]
                    buffer[i].cause = cause <= UInt32(UInt8.max) ? CancelCause(code: UInt8(cause)) : nil
                    causes += 1
                case .none: break
                }
                let id = firstID != 0 ? firstID + UInt64(i) : 0
                buffer[i].id = id
                if payload.caused {
                    causedKinds += 1
                    if caused < causeDeltas.count {
                        let delta = causeDeltas[caused]
                        if delta != 0, delta < id { buffer[i].causedBy = id - delta }
                        let threadNumber = eventThreads[caused]
                        if threadNumber != threadID {
                            thread = try table.string(threadNumber)
                            threadID = threadNumber
                        }
                        buffer[i].thread = thread
                        caused += 1
                    }
                }
                if payload.timed { try times.next(into: &buffer[i]) }
            }
        }
        guard nodeDeltas.atEnd, timeDeltas.atEnd else { throw differentLengths }
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
        try unpackCodes(p, into: &batch, table: table)
        return batch
    }

    // The kinds by wire number, and what each carries, looked up in arrays: through
    // `EventKind(wireNumber:)` (generic, in another module) and `payload` (a call into
    // it) they would take a third of the unpacking's time. Read into locals before a loop.
    private static let kinds: [EventKind] = (0...UInt8.max).map { EventKind(rawValue: $0) ?? .unknown }
    private static let payloads: [EventKind.Payload] = (0...UInt8.max).map {
        (EventKind(rawValue: $0) ?? .unknown).payload
    }

    /// A column sent as runs (version 4) or plain; both at once is malformed.
    private static func runsOrPlain<T: FixedWidthInteger>(_ runs: [T], _ plain: [T], atMost limit: Int,
                                                          _ name: String) throws -> [T] {
        if runs.isEmpty { return plain }
        guard plain.isEmpty else {
            throw FrameError.malformed("a packed batch with both a \(name) column and its runs")
        }
        return try ColumnRuns.expand(runs, atMost: limit, name)
    }

    private static let differentLengths = FrameError.malformed("a packed batch whose event columns have different lengths")

    private static func shortColumn(_ name: String) -> FrameError {
        .malformed("a packed batch with fewer \(name) than events that need one")
    }
}
