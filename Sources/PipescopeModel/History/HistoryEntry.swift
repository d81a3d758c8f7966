import PipescopeGraph

/// One event as the history keeps it: 40 bytes instead of a ``StageEvent``'s 120.
///
/// An event has a demand or another stage's id, never both (``EventKind/payload``), so
/// one number holds whichever its kind has. A value has neither, so a scalar value (the
/// probe sends every one as its number, ``EventValue``) is kept in that number as its
/// bits, its kind in the flags' low bits (a value has no cancel cause), and its words
/// are made when it is shown; so is a value text of up to 8 UTF-8 bytes (short strings).
/// Longer text (a failure, a value's description) lives beside the entries, keyed by
/// position.
///
/// The event's own number is not in the entry: numbers run on by one from event to
/// event, so the history keeps where each run starts (``History``'s `idRuns`). What
/// caused the event is kept as its distance back from that number (``causeBack``, 4
/// bytes: a cause is always earlier); its thread as an index into the history's table of
/// thread names (2 bytes); a value's delivery times in 4 bytes each (``PackedNanos``);
/// the cancel cause and the two text flags share a byte. So: node, time, number (8
/// each), cause distance, own and total time (4 each), thread (2), kind and flags (1
/// each): 40 bytes, 8 more than an entry without causes and times.
struct HistoryEntry: Sendable {
    var node: NodeID
    var time: Int64
    /// The demand of request and demand events (-1 unlimited), the other stage (or owner)
    /// of the kinds that link two things; 0 otherwise.
    var number: Int64
    /// `id - causedBy`: 0 when the event caused itself or its cause is unknown;
    /// ``causeTooFar`` when the cause is more than 4 billion events back (so older than
    /// any history or probe keeps).
    var causeBack: UInt32
    /// ``StageEvent/selfNanos`` and ``StageEvent/totalNanos`` (see ``PackedNanos``).
    var selfTime: UInt32
    var totalTime: UInt32
    /// The thread's index in ``ThreadNames`` (0: unknown).
    var thread: UInt16
    var kind: EventKind
    /// The cancel cause's code in the low 6 bits (a value's: its scalar's kind, see
    /// ``inlineValue``), ``hasText`` and ``textInline`` above.
    private var flags: UInt8

    static let causeTooFar = UInt32.max
    private static let hasTextBit: UInt8 = 0x40
    private static let inlineBit: UInt8 = 0x80

    /// ``CancelCause/code``; 0 for none.
    var cause: UInt8 { kind == .value ? 0 : flags & 0x3F }
    var hasText: Bool { flags & Self.hasTextBit != 0 }
    /// The text is in `number` (a value's short text), not beside the entries.
    var textInline: Bool { flags & Self.inlineBit != 0 }

    /// The entry for `event`, on the thread numbered `thread`.
    init(_ event: StageEvent, thread: UInt16 = 0) {
        node = event.node
        time = event.time
        kind = event.kind
        self.thread = thread
        selfTime = PackedNanos.pack(event.selfNanos)
        totalTime = PackedNanos.pack(event.totalNanos)
        if event.causedBy == 0 || event.causedBy >= event.id {
            causeBack = 0
        } else {
            causeBack = UInt32(exactly: event.id - event.causedBy) ?? Self.causeTooFar
        }
        flags = (event.cause?.code ?? 0) & 0x3F
        let value = event.value
        if !value.isEmpty { flags |= Self.hasTextBit }
        switch event.kind.payload.field {
        case .demand: number = event.demand.wire
        case .other: number = Int64(bitPattern: event.other)
        case .cause, .none: number = 0
        }
        guard hasText, event.kind == .value else { return }
        switch value {
        case .none: break
        case .text(let text):
            if text.utf8.count <= 8, !text.utf8.contains(0) {
                var packed: UInt64 = 0
                for (i, byte) in text.utf8.enumerated() { packed |= UInt64(byte) << (8 * UInt64(i)) }
                number = Int64(bitPattern: packed)
                flags = Self.inlineBit | Self.hasTextBit
            }
        case .int(let v): inline(.int, Int64(v))
        case .uint(let v): inline(.uint, Int64(bitPattern: v))
        case .double(let v): inline(.double, Int64(bitPattern: v.bitPattern))
        case .float(let v): inline(.float, Int64(v.bitPattern))
        case .bool(let v): inline(.bool, v ? 1 : 0)
        case .void: inline(.void, 0)
        }
    }

    /// The entry as a spill file keeps it: its text (``hasText``, not ``textInline``) is
    /// at `offset` of the spill's texts. The offset goes where the kind has room: the
    /// number, unless the kind uses it for another stage (`owned`, `ownerReleased`, which
    /// are not timed), then the two delivery times.
    func spilled(textAt offset: Int64) -> HistoryEntry {
        var entry = self
        if kind.payload.field == .other {
            entry.selfTime = UInt32(truncatingIfNeeded: UInt64(offset) >> 32)
            entry.totalTime = UInt32(truncatingIfNeeded: UInt64(offset))
        } else {
            entry.number = offset
        }
        return entry
    }

    /// Where ``spilled(textAt:)`` put the text's offset.
    var spilledTextOffset: Int64 {
        kind.payload.field == .other ? Int64(UInt64(selfTime) << 32 | UInt64(totalTime)) : number
    }

    /// The entry read back from a spill, as it was in memory: its text's offset taken
    /// out of the fields it borrowed.
    var unspilled: HistoryEntry {
        guard hasText, !textInline else { return self }
        var entry = self
        if kind.payload.field == .other {
            entry.selfTime = 0
            entry.totalTime = 0
        } else {
            entry.number = 0
        }
        return entry
    }

    /// A value's scalar kind, in the flags' low bits (0: the inline words of a text).
    private enum ScalarTag: UInt8 { case text, int, uint, double, float, bool, void }

    private mutating func inline(_ tag: ScalarTag, _ bits: Int64) {
        number = bits
        flags = Self.inlineBit | Self.hasTextBit | tag.rawValue
    }

    /// ``StageEvent/causedBy`` of the event numbered `id`: 0 when none or unknown, and
    /// when further back than 4 billion events (see ``causeIsTooFar``).
    func causedBy(id: EventID) -> EventID {
        causeBack == 0 || causeBack == Self.causeTooFar || EventID(causeBack) >= id ? 0 : id - EventID(causeBack)
    }

    /// The event had a cause, further back than the entry can say.
    var causeIsTooFar: Bool { causeBack == Self.causeTooFar }

    /// A value kept in the entry itself: a scalar, or a short text.
    var inlineValue: EventValue? {
        guard textInline else { return nil }
        switch ScalarTag(rawValue: flags & 0x3F) ?? .text {
        case .text: break
        case .int: return .int(number)
        case .uint: return .uint(UInt64(bitPattern: number))
        case .double: return .double(Double(bitPattern: UInt64(bitPattern: number)))
        case .float: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: number)))
        case .bool: return .bool(number != 0)
        case .void: return .void
        }
        var bytes: [UInt8] = []
        var packed = UInt64(bitPattern: number)
        while packed != 0 {
            bytes.append(UInt8(truncatingIfNeeded: packed))
            packed >>= 8
        }
        return EventValue(text: String(decoding: bytes, as: UTF8.self))
    }

    /// The event numbered `id` again; `value` is ``inlineValue``, or looked up by the
    /// history when ``hasText``; `thread` is the name of the entry's thread.
    func event(value: EventValue, thread: String = "", id: EventID = 0) -> StageEvent {
        var e = StageEvent(kind, node: node, time: time, cause: CancelCause(code: cause), value: value)
        e.id = id
        e.causedBy = causedBy(id: id)
        e.thread = thread
        e.selfNanos = PackedNanos.unpack(selfTime)
        e.totalNanos = PackedNanos.unpack(totalTime)
        guard !textInline else { return e }  // a value: it has neither demand nor other stage
        switch kind.payload.field {
        case .demand: e.demand = Demand(wire: number)
        case .other: e.other = UInt64(bitPattern: number)
        case .cause, .none: break
        }
        return e
    }
}

/// The names of the threads the history's events happened on, each kept once: an entry
/// holds its thread's index (2 bytes), not its name.
struct ThreadNames: Sendable {
    /// Index 0 is the unknown thread (""); the table holds at most 65,535 names, and
    /// threads beyond that are named ``overflow``.
    private(set) var names: [String] = [""]
    private var indices: [String: UInt16] = ["": 0]

    static let overflow = "(one of too many threads)"

    mutating func index(of name: String) -> UInt16 {
        if let i = indices[name] { return i }
        guard names.count < Int(UInt16.max) else { return UInt16.max }
        let i = UInt16(names.count)
        names.append(name)
        indices[name] = i
        return i
    }

    func name(_ index: UInt16) -> String {
        Int(index) < names.count ? names[Int(index)] : Self.overflow
    }
}

/// A delivery time in 4 bytes: nanoseconds up to 2.1 s exactly; longer ones in
/// microseconds (to 35 minutes), with the top bit set.
enum PackedNanos {
    static func pack(_ nanos: Int64) -> UInt32 {
        guard nanos > 0 else { return 0 }
        if nanos < 0x8000_0000 { return UInt32(nanos) }
        return 0x8000_0000 | UInt32(min(nanos / 1_000, 0x7FFF_FFFF))
    }

    static func unpack(_ packed: UInt32) -> Int64 {
        packed & 0x8000_0000 == 0 ? Int64(packed) : Int64(packed & 0x7FFF_FFFF) * 1_000
    }
}
