import DequeModule

/// The bounded buffer between the program's threads and the flush.
///
/// Rules:
/// - It never grows past `capacity` events between two drains. An event that does not
///   fit is counted in ``dropped`` and forgotten: the program is never stalled.
/// - When it reaches half its capacity it says so once (``append(_:)`` returns true), so
///   the caller can ask for an early flush, after releasing the lock it is under.
/// - It holds ``RawEvent``s only: plain data, never a user object.
/// - Not thread-safe by itself: it lives inside ``StageRegistry``'s locked state.
struct EventRing {
    private(set) var events: Deque<RawEvent>
    let capacity: Int
    /// Events dropped because the buffer was full, since the start.
    private(set) var dropped: UInt64 = 0
    /// Events appended since the start (dropped ones excluded): the position of the next
    /// event, for finding it again before the drain takes it.
    private(set) var appended: UInt64 = 0
    /// `appended` when the last drain took the buffer.
    private var drainedAt: UInt64 = 0
    private var halfFullSignalled = false

    init(capacity: Int) {
        self.capacity = capacity
        events = Self.emptyBuffer(capacity)
    }

    /// Appends `event` if there is room; true when this append made the buffer half full.
    @inline(__always)
    mutating func append(_ event: RawEvent) -> Bool {
        guard events.count < capacity else {
            dropped &+= 1
            return false
        }
        events.append(event)
        appended &+= 1
        if events.count >= capacity / 2, !halfFullSignalled {
            halfFullSignalled = true
            return true
        }
        return false
    }

    /// Gives the event appended at `position` (a past ``appended``) its text, if the
    /// drain has not taken it yet; false if it has (the text is then let go).
    mutating func setText(_ text: String, at position: UInt64) -> Bool {
        guard position >= drainedAt, position < appended else { return false }
        events[Int(position - drainedAt)].payload = .text(text)
        return true
    }

    /// Takes every buffered event, leaving `fresh` (made outside the lock) in its place.
    mutating func drain(into fresh: inout Deque<RawEvent>) {
        swap(&fresh, &events)
        drainedAt = appended
        halfFullSignalled = false
    }

    /// An empty buffer sized for a typical flush (it grows up to `capacity` if needed).
    static func emptyBuffer(_ capacity: Int) -> Deque<RawEvent> {
        Deque(minimumCapacity: min(capacity, 4096))
    }
}
