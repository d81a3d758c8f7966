import PipescopeGraph

/// The bounded buffer between the program's threads and the flush.
///
/// Rules:
/// - A turn (the events between two drains) holds `capacity` events, and grows, by
///   doubling, up to `maxCapacity` when the flush falls behind (a burst, or the flush's
///   core taken by something else). An event beyond that is counted in ``dropped``, and
///   by stage in the turn's ``Buffers/drops``, and forgotten: the program is never
///   stalled, and the loss is said where it happened.
/// - When it reaches half its capacity it says so (``append(_:)`` sets `halfFull`), so
///   the caller can ask for an early flush, after releasing the lock it is under; and
///   again each time it grows, so a flush that missed the first signal is asked again.
/// - Buffers grown past twice `capacity` are kept for the next burst only while the
///   turns stay busy; a quiet turn lets them go (outside the lock), so a burst does not
///   leave the program holding its memory.
/// - It holds plain data only, never a user object: ``RawEvent``s, and beside them the
///   texts and node infos they refer to by index, and the return addresses captured
///   with a node info (at most ``addressCapacity`` words a turn; a stage beyond that
///   goes without its location rather than the buffer growing).
/// - Two sets of buffers take turns: the drain takes the full one and leaves the one the
///   previous flush handed back, emptied with its capacity kept, so a steady stream
///   neither allocates nor touches new pages.
/// - Not thread-safe by itself: it lives inside ``StageRegistry``'s locked state.
package struct EventRing {
    /// One turn's worth of events and what they refer to.
    package struct Buffers {
        package var events: [RawEvent] = []
        package var texts: [String] = []
        /// New stages, as their node infos' makings (``NewStage``).
        var stages: [NewStage] = []
        /// For each of `stages`, the range of `addresses` captured with it (empty: none).
        var stacks: [Range<Int>] = []
        /// Return addresses of the stages' call stacks, nearest first (see ``CallStack``).
        package var addresses: [UInt] = []
        /// For each of `stages`, the range of `codeWords` read from its publisher and
        /// subscriber (``CodeFields``; empty: none).
        var codes: [Range<Int>] = []
        /// Pairs of a closure's function address and its context's first capture.
        package var codeWords: [UInt] = []
        /// The number of the first event (``StageEvent/id``): the rest follow in order.
        package var firstID: EventID = 1
        /// What this turn could not keep: the gap comes after its last event.
        package var drops = DroppedEvents()

        var isEmpty: Bool {
            events.isEmpty && texts.isEmpty && stages.isEmpty && addresses.isEmpty && codeWords.isEmpty
                && drops.isEmpty
        }

        /// How many new stages the buffers hold.
        package var stageCount: Int { stages.count }

        /// The addresses captured with `stages[index]`.
        package func stack(of index: Int) -> ArraySlice<UInt> { addresses[stacks[index]] }

        /// The code words read for `stages[index]` (``CodeFields/read(_:into:)``).
        package func code(of index: Int) -> ArraySlice<UInt> { codeWords[codes[index]] }

        /// Whether `stages[index]` was subscribed inside a delivery (an inner publisher).
        package func isInner(_ index: Int) -> Bool { stages[index].inner }

        /// Empties the buffers, keeping their capacity. Releases the texts: do it
        /// outside the lock.
        mutating func removeAll() {
            events.removeAll(keepingCapacity: true)
            texts.removeAll(keepingCapacity: true)
            stages.removeAll(keepingCapacity: true)
            stacks.removeAll(keepingCapacity: true)
            addresses.removeAll(keepingCapacity: true)
            codes.removeAll(keepingCapacity: true)
            codeWords.removeAll(keepingCapacity: true)
            drops.removeAll()
        }
    }

    private(set) var buffers = Buffers()
    /// The other buffers, empty, waiting to take over at the next drain.
    private var spare = Buffers()
    let capacity: Int
    /// The most events a turn may grow to (see the rules above).
    let maxCapacity: Int
    /// The current turn's bound: `capacity`, doubled each time the turn fills it, up to
    /// `maxCapacity`.
    private var limit: Int
    /// Return-address words kept per turn: 40 frames for each of 1,600 new stages in one
    /// flush window (``FlushInterval``), 512 KiB.
    static let addressCapacity = 1 << 16
    /// Events dropped because the buffer was full, since the start.
    private(set) var dropped: UInt64 = 0
    /// Events appended since the start (dropped ones excluded): the position of the next
    /// event, for finding it again before the drain takes it.
    private(set) var appended: UInt64 = 0
    /// `appended` when the last drain took the buffer.
    private var drainedAt: UInt64 = 0
    private var halfFullSignalled = false

    /// `maxCapacity`: how far a turn may grow under a burst (at least `capacity`).
    package init(capacity: Int, maxCapacity: Int? = nil) {
        self.capacity = capacity
        self.maxCapacity = max(capacity, maxCapacity ?? capacity)
        limit = capacity
        buffers.events.reserveCapacity(min(capacity, 4096))
    }

    /// Appends `event` if there is room; false if it was dropped. Sets `halfFull` when
    /// this append made the buffer half full, or grew it.
    @inline(__always)
    mutating func append(_ event: RawEvent, halfFull: inout Bool) -> Bool {
        if buffers.events.count >= limit {
            guard grow(halfFull: &halfFull) else {
                dropped &+= 1
                buffers.drops.count(node: event.node, time: event.time)
                return false
            }
        }
        buffers.events.append(event)
        appended &+= 1
        if buffers.events.count >= capacity / 2, !halfFullSignalled {
            halfFullSignalled = true
            halfFull = true
        }
        return true
    }

    /// Doubles the turn's bound, if `maxCapacity` allows, and asks for a flush again.
    /// The events' array then grows as arrays do, copying the turn's events under the
    /// lock: at most three times a burst (64 Ki to 512 Ki events), a wait that keeps
    /// events which would otherwise be lost; buffers kept from a burst do not copy again.
    @inline(never)
    private mutating func grow(halfFull: inout Bool) -> Bool {
        guard limit < maxCapacity else { return false }
        limit = min(limit * 2, maxCapacity)
        halfFull = true
        return true
    }

    /// Appends `event` with `text` (as a ready text, or a `String` value to cut later).
    mutating func append(_ event: RawEvent, text: String, as payload: RawEvent.Payload = .text,
                         halfFull: inout Bool) -> Bool {
        var event = event
        event.payload = payload
        event.bits = UInt64(buffers.texts.count)
        guard append(event, halfFull: &halfFull) else { return false }
        buffers.texts.append(text)
        return true
    }

    /// Appends a subscribe `event` with what its stage's node info is made of and the
    /// return addresses captured when it subscribed (copied; kept only while they fit).
    mutating func append(_ event: RawEvent, stage: consuming NewStage,
                         stack: UnsafeBufferPointer<UInt> = .init(start: nil, count: 0),
                         code: UnsafeBufferPointer<UInt> = .init(start: nil, count: 0),
                         halfFull: inout Bool) -> Bool {
        var event = event
        event.payload = .info
        event.bits = UInt64(buffers.stages.count)
        guard append(event, halfFull: &halfFull) else { return false }
        buffers.stages.append(stage)
        let start = buffers.addresses.count
        if !stack.isEmpty, start + stack.count <= Self.addressCapacity {
            buffers.addresses.append(contentsOf: stack)
        }
        buffers.stacks.append(start..<buffers.addresses.count)
        let codeStart = buffers.codeWords.count
        if !code.isEmpty, codeStart + code.count <= Self.addressCapacity {
            buffers.codeWords.append(contentsOf: code)
        }
        buffers.codes.append(codeStart..<buffers.codeWords.count)
        return true
    }

    /// The number the next event appended will have (events count from 1).
    var nextID: EventID { appended &+ 1 }

    /// Gives the value numbered `id` the time its delivery took, if the drain has not
    /// taken it yet; false if it has.
    mutating func setTiming(of id: EventID, selfTicks: Int64, totalTicks: Int64) -> Bool {
        guard id > drainedAt, id <= appended else { return false }
        let i = Int(id - 1 - drainedAt)
        buffers.events[i].selfTicks = selfTicks
        buffers.events[i].totalTicks = totalTicks
        return true
    }

    /// Gives the event appended at `position` (a past ``appended``) its text, if the
    /// drain has not taken it yet; false if it has (the text is then let go).
    mutating func setText(_ text: String, at position: UInt64) -> Bool {
        guard position >= drainedAt, position < appended else { return false }
        let i = Int(position - drainedAt)
        buffers.events[i].payload = .text
        buffers.events[i].bits = UInt64(buffers.texts.count)
        buffers.texts.append(text)
        return true
    }

    /// Takes every buffered event, leaving the spare buffers in their place.
    mutating package func drain() -> Buffers {
        var taken = spare
        spare = Buffers()
        swap(&taken, &buffers)
        taken.firstID = drainedAt &+ 1
        drainedAt = appended
        halfFullSignalled = false
        // A turn that needed the room keeps it; a quiet one starts from `capacity` again.
        let used = taken.events.count
        limit = used > capacity ? min(maxCapacity, max(capacity, limit)) : capacity
        return taken
    }

    /// Takes back drained buffers for the next drain. They must be empty: emptying them
    /// releases the texts they held, which the caller does outside the lock. Buffers
    /// grown by a burst that has passed (the current turn back at `capacity`) are left
    /// with the caller, who lets them go after releasing the lock.
    mutating package func recycle(_ drained: inout Buffers) {
        guard drained.isEmpty, drained.events.capacity > spare.events.capacity else { return }
        if drained.events.capacity > 2 * capacity, limit == capacity { return }
        swap(&spare, &drained)
    }
}
