import PipescopeGraph

/// A probe's recent caused events (``GraphSnapshot/recent``) between the domain and the
/// wire's `RecentEvents` columns (see Resources/pipescope.proto).
///
/// ```swift
/// let wire = RecentCoding.wire(snapshot.recent)       // the probe, in its snapshot
/// let back = try RecentCoding.events(wire)            // the inspector
/// ```
public enum RecentCoding {
    /// The events as columns. Events without a number are left out (nothing can name
    /// them as a cause), and so are those out of order.
    public static func wire(_ events: [StageEvent]) -> WireRecentEvents {
        var w = WireRecentEvents()
        var idDeltas: [UInt64] = [], causeDeltas: [UInt64] = [], kinds: [UInt32] = [], nodes: [UInt64] = []
        var timeDeltas: [Int64] = [], threads: [UInt32] = [], cancelCauses: [UInt32] = []
        var textEvents: [UInt32] = [], texts: [String] = []
        var threadNames: [String] = [], threadIndex: [String: UInt32] = [:]
        var lastID: EventID = 0
        let base = events.first?.time ?? 0
        var time = base
        for event in events where event.id > lastID {
            idDeltas.append(event.id - lastID)
            lastID = event.id
            causeDeltas.append(event.causedBy != 0 && event.causedBy < event.id ? event.id - event.causedBy : 0)
            kinds.append(UInt32(event.kind.rawValue))
            nodes.append(event.node)
            timeDeltas.append(event.time &- time)
            time = event.time
            if let i = threadIndex[event.thread] {
                threads.append(i)
            } else {
                let i = UInt32(threadNames.count)
                threadIndex[event.thread] = i
                threadNames.append(event.thread)
                threads.append(i)
            }
            if event.kind == .cancelled { cancelCauses.append(UInt32(event.cause?.code ?? 0)) }
            if !event.text.isEmpty {
                textEvents.append(UInt32(kinds.count - 1))
                texts.append(event.text)
            }
        }
        w.idDeltas = idDeltas
        w.causeDeltas = causeDeltas
        w.kinds = kinds
        w.nodes = nodes
        w.baseTimeNs = base
        w.timeDeltas = timeDeltas
        w.threads = threads
        w.threadNames = threadNames
        w.cancelCauses = cancelCauses
        w.textEvents = textEvents
        w.texts = texts
        return w
    }

    /// The events again. Columns that disagree throw ``FrameError/malformed(_:)``.
    public static func events(_ w: WireRecentEvents) throws -> [StageEvent] {
        let count = w.idDeltas.count
        let idDeltas = w.idDeltas, causeDeltas = w.causeDeltas, kinds = w.kinds, nodes = w.nodes
        let timeDeltas = w.timeDeltas, threads = w.threads, names = w.threadNames, cancelCauses = w.cancelCauses
        guard [causeDeltas.count, kinds.count, nodes.count, timeDeltas.count, threads.count].allSatisfy({ $0 == count }),
              w.textEvents.count == w.texts.count else {
            throw FrameError.malformed("a snapshot's recent events whose columns have different lengths")
        }
        var events: [StageEvent] = []
        events.reserveCapacity(count)
        var id: EventID = 0
        var time = w.baseTimeNs
        var cancels = 0
        for i in 0..<count {
            id = id &+ idDeltas[i]
            time = time &+ timeDeltas[i]
            var event = StageEvent(EventKind(wireNumber: kinds[i]), node: nodes[i], time: time)
            event.id = id
            if causeDeltas[i] != 0, causeDeltas[i] < id { event.causedBy = id - causeDeltas[i] }
            guard Int(threads[i]) < names.count else {
                throw FrameError.malformed("a snapshot's recent event on thread \(threads[i]) of \(names.count)")
            }
            event.thread = names[Int(threads[i])]
            if event.kind == .cancelled {
                guard cancels < cancelCauses.count else {
                    throw FrameError.malformed("a snapshot's recent events with fewer cancel causes than cancels")
                }
                let code = cancelCauses[cancels]
                event.cause = code <= UInt32(UInt8.max) ? CancelCause(code: UInt8(code)) : nil
                cancels += 1
            }
            events.append(event)
        }
        for (index, text) in zip(w.textEvents, w.texts) {
            guard Int(index) < count else {
                throw FrameError.malformed("a snapshot's recent events with text for event \(index) of \(count)")
            }
            events[Int(index)].text = text
        }
        return events
    }
}
