import PipescopeGraph

/// The sequence's intern tables: event names, debug annotation names, string values that
/// repeat, and source locations, each text written once and then referred to by its iid.
///
/// A packet that uses a new entry carries it in its own `interned_data`, so every iid a
/// packet refers to is defined in it or before it on the sequence. A string value is
/// interned when it comes a second time (most value texts are numbers seen once; the
/// ones that repeat, such as an operator, a thread or `()`, are worth an iid), and only
/// if it is short: a 10 kB text is written inline.
///
/// The tables are bounded: past ``maximumEntries`` or ``maximumBytes`` they are cleared,
/// and the next packet says so (`SEQ_INCREMENTAL_STATE_CLEARED`), so memory stays flat
/// however long the recording.
struct PerfettoInterner {
    /// The tables' bounds: entries, and bytes of text.
    let maximumEntries: Int
    let maximumBytes: Int
    /// Longer string values are never interned.
    static let longestInterned = 512

    private var eventNames: [String: UInt64] = [:]
    private var annotationNames: [String: UInt64] = [:]
    /// String values: their iid, or ``seenOnce`` (interned the second time). One table,
    /// so that a value costs one hash lookup.
    private var stringValues: [String: UInt64] = [:]
    private static let seenOnce = UInt64.max
    private static let absent = UInt64.max - 1
    private var locations: [SourceLocation: UInt64] = [:]
    /// The names used last, looked up by comparing (cheaper than hashing a String): most
    /// events use one of a few ("value", "request", "thread").
    private var recentNames = RecentNames()
    private var recentAnnotationNames = RecentNames()
    private var nextIID: UInt64 = 1
    private var bytes = 0

    /// Entries made for the packet being built, as InternedData fields.
    private(set) var pending = ProtoWriter(capacity: 0)

    /// Whether the tables were cleared since the last packet took ``takePending()``.
    private(set) var cleared = true
    /// Times the tables were cleared because they were full.
    private(set) var resets = 0

    private typealias Field = PerfettoSchema.InternedData

    init(maximumEntries: Int = 200_000, maximumBytes: Int = 16 << 20) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
    }

    mutating func eventName(_ name: String) -> UInt64 {
        if let iid = recentNames[name] { return iid }
        if let iid = eventNames[name] { recentNames.remember(name, iid); return iid }
        let iid = add(name.utf8.count)
        eventNames[name] = iid
        pending.message(Field.eventNames) { $0.varint(PerfettoSchema.Interned.iid, iid); $0.string(PerfettoSchema.Interned.text, name) }
        return iid
    }

    mutating func annotationName(_ name: String) -> UInt64 {
        if let iid = recentAnnotationNames[name] { return iid }
        if let iid = annotationNames[name] { recentAnnotationNames.remember(name, iid); return iid }
        let iid = add(name.utf8.count)
        annotationNames[name] = iid
        pending.message(Field.debugAnnotationNames) {
            $0.varint(PerfettoSchema.Interned.iid, iid); $0.string(PerfettoSchema.Interned.text, name)
        }
        return iid
    }

    /// The iid of a string value that repeats; nil to write it inline.
    mutating func stringValue(_ text: String) -> UInt64? {
        let count = text.utf8.count
        guard count <= Self.longestInterned else { return nil }
        let fresh = nextIID
        switch Self.visit(&stringValues[text, default: Self.absent], fresh: fresh) {
        case .known(let iid):
            return iid
        case .first:
            bytes += count
            return nil
        case .second:
            let iid = add(count)
            pending.message(Field.debugAnnotationStringValues) {
                $0.varint(PerfettoSchema.Interned.iid, iid)
                $0.data(PerfettoSchema.Interned.text, Array(text.utf8))   // InternedString.str is bytes
            }
            return iid
        }
    }

    private enum Visit { case first, second, known(UInt64) }

    /// A string value's entry, made or updated in place: absent becomes seen once, seen
    /// once becomes `fresh`.
    private static func visit(_ entry: inout UInt64, fresh: UInt64) -> Visit {
        switch entry {
        case absent: entry = seenOnce; return .first
        case seenOnce: entry = fresh; return .second
        default: return .known(entry)
        }
    }

    mutating func location(_ location: SourceLocation) -> UInt64 {
        if let iid = locations[location] { return iid }
        let file = location.file ?? location.image ?? "?"
        let function = location.function ?? location.short
        let iid = add(file.utf8.count + function.utf8.count)
        locations[location] = iid
        typealias L = PerfettoSchema.SourceLocation
        pending.message(Field.sourceLocations) {
            $0.varint(L.iid, iid)
            $0.string(L.fileName, file)
            $0.string(L.functionName, function)
            if let line = location.line { $0.varint(L.lineNumber, UInt64(line)) }
        }
        return iid
    }

    /// The entries made since the last call, and whether the tables were cleared before
    /// them; clears the tables first when they are full (call before building a packet).
    mutating func takePending() -> (interned: [UInt8], cleared: Bool) {
        defer {
            pending.removeAll()
            cleared = false
        }
        return (pending.bytes, cleared)
    }

    /// Clears the tables if they are full. Call before building a packet, never during.
    mutating func resetIfFull() {
        guard eventNames.count + annotationNames.count + stringValues.count + locations.count
            > maximumEntries || bytes > maximumBytes else { return }
        eventNames = [:]
        annotationNames = [:]
        recentNames = RecentNames()
        recentAnnotationNames = RecentNames()
        stringValues.removeAll(keepingCapacity: true)
        locations = [:]
        bytes = 0
        nextIID = 1
        pending.removeAll()
        cleared = true
        resets += 1
    }

    private mutating func add(_ size: Int) -> UInt64 {
        bytes += size + 16
        defer { nextIID += 1 }
        return nextIID
    }
}

/// A few names and their iids, found by comparison, replaced in turn.
private struct RecentNames {
    private var names: [String] = []
    private var iids: [UInt64] = []
    private var next = 0
    static let size = 8

    subscript(name: String) -> UInt64? {
        for i in names.indices where names[i] == name { return iids[i] }
        return nil
    }

    mutating func remember(_ name: String, _ iid: UInt64) {
        if names.count < Self.size {
            names.append(name)
            iids.append(iid)
            return
        }
        names[next] = name
        iids[next] = iid
        next = (next + 1) % Self.size
    }
}
