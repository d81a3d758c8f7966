import PipescopeGraph

/// Arrows from the event that caused each value to the value: across stages, threads
/// and asynchronous hops (receive(on:), debounce), from the causes the tap recorded
/// (``StageEvent/causedBy``, which points back at an earlier ``StageEvent/id``).
///
/// An arrow needs a flow id on both of its ends, and an event may cause several others
/// (a subject sending to two subscribers, a value that triggers a request), which are
/// seen only after it. So drawn events wait here before they are written: those of the
/// batch being read and of the batch before it. When an event arrives whose cause is
/// still waiting, the cause gets a new id in its `flow_ids` and the event the same id in
/// its `terminating_flow_ids`: each id has exactly one start and one end, whatever the
/// fan-out. A cause written already (more than a batch earlier, about 25 ms of the
/// program's time) gets no arrow; ``missed`` counts those.
///
/// ```swift
/// var flows = CauseFlows()
/// flows.add(subjectValue, id: 7, causedBy: 0)
/// flows.add(mapValue, id: 8, causedBy: 7)        // an arrow 7 → 8
/// for event in flows.endBatch() { try sequence.write(event) }
/// ```
struct CauseFlows {
    /// Waiting events, oldest first, from absolute position ``base``.
    private var waiting: [PerfettoEvent] = []
    private var head = 0
    private var base = 0
    /// Where the waiting events of each recorded id are (absolute positions).
    private var positions: [EventID: Int] = [:]
    /// The absolute position of the current batch's first event.
    private var batchStart = 0
    private var nextFlow: UInt64 = 1

    /// The most events that wait, whatever the batches' sizes.
    static let maximumWaiting = 200_000

    /// Arrows drawn, and causes that were written already (or never drawn).
    private(set) var arrows = 0
    private(set) var missed = 0

    /// Adds a drawn event; with `id` (0: none) it may cause later events, and with
    /// `causedBy` (0: none) it ends an arrow from its cause if that is still waiting.
    mutating func add(_ event: consuming PerfettoEvent, id: EventID, causedBy: EventID) {
        if causedBy != 0 {
            if let p = positions[causedBy], p >= base + head {
                let flow = nextFlow
                nextFlow += 1
                waiting[p - base].flows.append(flow)
                event.terminatingFlows.append(flow)
                arrows += 1
            } else {
                missed += 1
            }
        }
        if id != 0 { positions[id] = base + waiting.count }
        waiting.append(event)
    }

    /// A new flow id, for arrows drawn elsewhere (cancels).
    mutating func newFlow() -> UInt64 {
        defer { nextFlow += 1 }
        return nextFlow
    }

    /// The events to write now that a batch is read: all but the batch's own (and fewer
    /// than ``maximumWaiting`` wait).
    mutating func endBatch() -> ArraySlice<PerfettoEvent> {
        let keepFrom = max(batchStart, base + waiting.count - Self.maximumWaiting)
        batchStart = base + waiting.count
        return release(upTo: keepFrom)
    }

    /// Everything still waiting (the end of the recording).
    mutating func takeAll() -> ArraySlice<PerfettoEvent> {
        batchStart = base + waiting.count
        return release(upTo: batchStart)
    }

    private mutating func release(upTo end: Int) -> ArraySlice<PerfettoEvent> {
        let from = head
        let to = max(from, end - base)
        head = to
        let out = waiting[from..<to]
        if head > 4096, head * 2 > waiting.count {
            // Forget what was released: the ids pointing into it, and the array's prefix.
            positions = positions.filter { $0.value >= base + head }
            waiting.removeFirst(head)
            base += head
            head = 0
            return ArraySlice(out)
        }
        return out
    }
}
