/// Events encoded ahead of their packets: each one's TrackEvent fields and the intern
/// entries it made, in one byte arena, plus the flow ids added to it after it was
/// encoded (the arrows that start at it, known only when what it caused arrives).
///
/// Nothing in it is reference-counted per event: an entry is a few numbers, the bytes
/// are one array, and a flow id is stored in its entry (the rare second and later ones
/// in a side table). ``CauseFlows`` holds the events of the last two batches here;
/// ``PerfettoSequence`` holds one at a time for the events it writes at once.
///
/// Entries are numbered from 0 in the order they were appended, for as long as the
/// buffer lives; ``removeFirst(upTo:)`` forgets the oldest.
///
/// ```swift
/// var held = HeldPackets()
/// let cause = held.append(time: 10, cleared: false, interned: [], body: causeFields)
/// held.addFlow(1, to: cause)                       // an arrow 1 starts at the cause
/// try sequence.write(held.entry(cause), from: held) // its packet, with flow_ids = [1]
/// ```
struct HeldPackets {
    struct Entry {
        /// Where its intern entries start in the arena; its TrackEvent fields follow them.
        var start: Int
        var internedCount: Int32
        var bodyCount: Int32
        /// Nanoseconds since 1970.
        var time: Int64
        /// Whether the sequence's intern tables were cleared just before it was encoded.
        var cleared: Bool
        /// Its position among the entries ever appended.
        var index: Int
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    /// The first flow id of each entry (0: none), beside ``entries``.
    private var firstFlows: [UInt64] = []
    /// The second and later flow ids, by entry index (fan-out: one cause, several effects).
    private var moreFlows: [Int: [UInt64]] = [:]
    /// The index of `entries[0]`, and the arena offset of its bytes.
    private var base = 0
    private var bytesBase = 0

    /// The index the next entry gets.
    var endIndex: Int { base + entries.count }
    var startIndex: Int { base }

    mutating func append(time: Int64, cleared: Bool, interned: [UInt8], body: [UInt8]) -> Entry {
        let entry = Entry(start: bytesBase + bytes.count, internedCount: Int32(interned.count), bodyCount: Int32(body.count),
                          time: time, cleared: cleared, index: endIndex)
        if !interned.isEmpty { bytes.append(contentsOf: interned) }
        bytes.append(contentsOf: body)
        entries.append(entry)
        firstFlows.append(0)
        return entry
    }

    /// The entry at `index` (between ``startIndex`` and ``endIndex``).
    func entry(_ index: Int) -> Entry { entries[index - base] }

    /// An arrow starting at the entry at `index`.
    mutating func addFlow(_ flow: UInt64, to index: Int) {
        let i = index - base
        if firstFlows[i] == 0 {
            firstFlows[i] = flow
        } else {
            moreFlows[index, default: []].append(flow)
        }
    }

    /// The entry's intern entries and TrackEvent fields.
    func withBytes<R>(of entry: Entry, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { all in
            let from = entry.start - bytesBase
            let interned = UnsafeBufferPointer(rebasing: all[from..<(from + Int(entry.internedCount))])
            let fieldsFrom = from + Int(entry.internedCount)
            let fields = UnsafeBufferPointer(rebasing: all[fieldsFrom..<(fieldsFrom + Int(entry.bodyCount))])
            return try body(interned, fields)
        }
    }

    /// The flow ids added to the entry, in the order they were added.
    func forEachFlow(of entry: Entry, _ body: (UInt64) -> Void) {
        let first = firstFlows[entry.index - base]
        guard first != 0 else { return }
        body(first)
        if !moreFlows.isEmpty, let more = moreFlows[entry.index] { more.forEach(body) }
    }

    /// The entries before `index`, as a buffer of their own (to be written elsewhere).
    func prefix(upTo index: Int) -> HeldPackets {
        let count = min(entries.count, max(0, index - base))
        var out = HeldPackets()
        out.base = base
        out.bytesBase = bytesBase
        guard count > 0 else { return out }
        let byteEnd = count < entries.count ? entries[count].start - bytesBase : bytes.count
        out.entries = Array(entries[..<count])
        out.firstFlows = Array(firstFlows[..<count])
        out.bytes = Array(bytes[..<byteEnd])
        if !moreFlows.isEmpty { out.moreFlows = moreFlows.filter { $0.key < index } }
        return out
    }

    /// Forgets the entries before `index` and their bytes.
    mutating func removeFirst(upTo index: Int) {
        let count = min(entries.count, max(0, index - base))
        guard count > 0 else { return }
        let byteEnd = count < entries.count ? entries[count].start - bytesBase : bytes.count
        if !moreFlows.isEmpty { moreFlows = moreFlows.filter { $0.key >= index } }
        if count == entries.count {
            entries.removeAll(keepingCapacity: true)
            firstFlows.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
        } else {
            entries.removeFirst(count)
            firstFlows.removeFirst(count)
            bytes.removeFirst(byteEnd)
        }
        base += count
        bytesBase += byteEnd
    }

    /// Forgets every entry.
    mutating func removeAll() { removeFirst(upTo: endIndex) }
}
