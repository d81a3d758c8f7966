import PipescopeGraph

/// Arrows from the event that caused each value to the value: across stages, threads
/// and asynchronous hops (receive(on:), debounce), from the causes the tap recorded
/// (``StageEvent/causedBy``, which points back at an earlier ``StageEvent/id``).
///
/// An arrow needs a flow id on both of its ends, and an event may cause several others
/// (a subject sending to two subscribers, a value that triggers a request), which are
/// seen only after it. So drawn events wait here before their packets are written: those
/// of the batch being read and of the batch before it. They wait encoded
/// (``HeldPackets``, on their own ``PerfettoSequence``, whose packets are then made on the
/// file's queue, beside the compression): when an event arrives whose
/// cause is still waiting, the cause gets a new id in its `flow_ids` and the event the
/// same id in its `terminating_flow_ids`, so each id has exactly one start and one end,
/// whatever the fan-out. A cause written already (more than a batch earlier, about 25 ms
/// of the program's time) gets no arrow; ``missed`` counts those.
///
/// ```swift
/// var flows = CauseFlows(sequence: delayed)
/// flows.add(subjectValue, id: 7, causedBy: 0)
/// flows.add(mapValue, id: 8, causedBy: 7)        // an arrow 7 → 8
/// try flows.endBatch()                           // writes what no arrow can reach now
/// ```
struct CauseFlows {
    /// The sequence the waiting events are encoded on and written to.
    let sequence: PerfettoSequence
    private var held = HeldPackets()
    /// Where the waiting events of each recorded id are: this batch's, the last batch's.
    private var current = EventPositions()
    private var previous = EventPositions()
    /// The position of the current batch's first event, and of the first not written.
    private var batchStart = 0
    private var written = 0
    private var nextFlow: UInt64 = 1

    /// The most events that wait, whatever the batches' sizes.
    static let maximumWaiting = 200_000

    /// Events written (or handed to the file's queue to be).
    private(set) var eventCount = 0
    /// Arrows drawn, and causes that were written already (or never drawn).
    private(set) var arrows = 0
    private(set) var missed = 0

    init(sequence: PerfettoSequence) {
        self.sequence = sequence
    }

    /// Adds a drawn event; with `id` (0: none) it may cause later events, and with
    /// `causedBy` (0: none) it ends an arrow from its cause if that is still waiting.
    mutating func add(_ event: consuming PerfettoEvent, id: EventID, causedBy: EventID) {
        let flow = arrow(from: causedBy)
        if flow != 0 { event.terminatingFlows.append(flow) }
        let entry = sequence.encode(event, into: &held)
        if id != 0 { current[id] = entry.index }
    }

    /// Adds a value's instant (as ``add(_:id:causedBy:)`` does an event).
    mutating func add(_ value: ValueInstant, id: EventID, causedBy: EventID) {
        let flow = arrow(from: causedBy)
        let entry = sequence.encode(value, terminatingFlow: flow, into: &held)
        if id != 0 { current[id] = entry.index }
    }

    /// A new arrow from the waiting event `causedBy` (its flow id, added to the cause),
    /// or 0 when there is none.
    private mutating func arrow(from causedBy: EventID) -> UInt64 {
        guard causedBy != 0 else { return 0 }
        guard let p = current[causedBy] ?? previous[causedBy], p >= written else {
            missed += 1
            return 0
        }
        let flow = nextFlow
        nextFlow += 1
        held.addFlow(flow, to: p)
        arrows += 1
        return flow
    }

    /// A new flow id, for arrows drawn elsewhere (cancels).
    mutating func newFlow() -> UInt64 {
        defer { nextFlow += 1 }
        return nextFlow
    }

    /// A batch is read: writes the events waiting from before it (and any beyond
    /// ``maximumWaiting``); its own wait for the next batch's.
    mutating func endBatch() throws {
        let keepFrom = max(batchStart, held.endIndex - Self.maximumWaiting)
        batchStart = held.endIndex
        try release(upTo: keepFrom)
        swap(&previous, &current)
        current.removeAll()
    }

    /// Writes everything still waiting (the end of the recording).
    mutating func finish() throws {
        batchStart = held.endIndex
        try release(upTo: held.endIndex)
    }

    private mutating func release(upTo end: Int) throws {
        guard end > written else { return }
        try sequence.writeHeld(held.prefix(upTo: end))
        eventCount += end - written
        written = end
        held.removeFirst(upTo: end)
    }
}
