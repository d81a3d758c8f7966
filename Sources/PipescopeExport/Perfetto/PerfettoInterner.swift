import PipescopeGraph

/// The sequence's intern tables: event names, debug annotation names, string values that
/// repeat, and source locations, each text written once and then referred to by its iid.
///
/// A packet that uses a new entry carries it in its own `interned_data`, so every iid a
/// packet refers to is defined in it or before it on the sequence. A string value is
/// interned when it comes a second time while still remembered (``RecentValues``: most
/// value texts are numbers seen once; the ones that repeat, such as an operator, a
/// thread or `()`, are worth an iid), and only if it is short: a 10 kB text is written
/// inline.
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
    /// String values seen lately, and the iids of those that came twice (``RecentValues``).
    private var recentValues = RecentValues()
    /// String values interned since the last clear.
    private var internedValues = 0
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

    /// The annotation names of a value's instant, looked up by number.
    enum FixedName: Int, CaseIterable {
        case value, mirroredFrom, thread, selfNanos, totalNanos, event

        var text: String {
            switch self {
            case .value: return "value"
            case .mirroredFrom: return "mirrored_from"
            case .thread: return "thread"
            case .selfNanos: return "self_ns"
            case .totalNanos: return "total_ns"
            case .event: return "event"
            }
        }
    }

    /// The iids of the ``FixedName``s (0: not interned since the last clear).
    private var fixedNames = [UInt64](repeating: 0, count: FixedName.allCases.count)

    mutating func annotationName(_ name: FixedName) -> UInt64 {
        let known = fixedNames[name.rawValue]
        if known != 0 { return known }
        let iid = annotationName(name.text)
        fixedNames[name.rawValue] = iid
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
        switch recentValues.visit(text) {
        case .known(let iid):
            return iid
        case .first:
            return nil
        case .second(let slot):
            let count = text.utf8.count
            let iid = add(count)
            internedValues += 1
            recentValues.intern(slot, iid)
            pending.message(Field.debugAnnotationStringValues) {
                $0.varint(PerfettoSchema.Interned.iid, iid)
                $0.string(PerfettoSchema.Interned.text, text)   // InternedString.str is bytes: the same encoding
            }
            return iid
        case .tooLong:
            return nil
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
        defer { cleared = false }
        guard !pending.isEmpty else { return ([], cleared) }
        defer { pending.removeAll() }
        return (pending.bytes, cleared)
    }

    /// Clears the tables if they are full. Call before building a packet, never during.
    mutating func resetIfFull() {
        guard eventNames.count + annotationNames.count + internedValues + locations.count
            > maximumEntries || bytes > maximumBytes else { return }
        eventNames = [:]
        annotationNames = [:]
        recentNames = RecentNames()
        recentAnnotationNames = RecentNames()
        fixedNames = [UInt64](repeating: 0, count: FixedName.allCases.count)
        recentValues.removeAll()
        internedValues = 0
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
