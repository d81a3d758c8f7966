import PipescopeGraph

/// One event as the history keeps it: 40 bytes instead of a ``StageEvent``'s 112.
///
/// An event has a demand or another stage's id, never both (``EventKind/payload``), so
/// one number holds whichever its kind has. A value has neither, so a value text of up
/// to 8 UTF-8 bytes (most numbers, short strings: the probe sends every scalar value's
/// text) is kept in that number. Longer text (a failure, a value's description) lives
/// beside the entries, keyed by position.
///
/// What caused the event is kept as its distance back from the event's own number
/// (``causeBack``, 4 bytes: a cause is always earlier), and its thread as an index into
/// the history's table of thread names (2 bytes); the cancel cause and the two text flags
/// share a byte. So: node, time, number, id (8 each), cause distance (4), thread (2),
/// kind and flags (1 each): 40 bytes, 8 more than before causes were kept.
struct HistoryEntry: Sendable {
    var node: NodeID
    var time: Int64
    /// The demand of request and demand events (-1 unlimited), the other stage (or owner)
    /// of the kinds that link two things; 0 otherwise.
    var number: Int64
    /// ``StageEvent/id``: 0 when unknown.
    var id: EventID
    /// `id - causedBy`: 0 when the event caused itself or its cause is unknown;
    /// ``causeTooFar`` when the cause is more than 4 billion events back (so older than
    /// any history or probe keeps).
    var causeBack: UInt32
    /// The thread's index in ``ThreadNames`` (0: unknown).
    var thread: UInt16
    var kind: EventKind
    /// The cancel cause's code in the low 6 bits, ``hasText`` and ``textInline`` above.
    private var flags: UInt8

    static let causeTooFar = UInt32.max
    private static let hasTextBit: UInt8 = 0x40
    private static let inlineBit: UInt8 = 0x80

    /// ``CancelCause/code``; 0 for none.
    var cause: UInt8 { flags & 0x3F }
    var hasText: Bool { flags & Self.hasTextBit != 0 }
    /// The text is in `number` (a value's short text), not beside the entries.
    var textInline: Bool { flags & Self.inlineBit != 0 }

    /// The entry for `event`, whose text (which may differ from the event's own, for
    /// older recordings) is `text`, on the thread numbered `thread`.
    init(_ event: StageEvent, text: String, thread: UInt16 = 0) {
        node = event.node
        time = event.time
        kind = event.kind
        id = event.id
        self.thread = thread
        if event.causedBy == 0 || event.causedBy >= event.id {
            causeBack = 0
        } else {
            causeBack = UInt32(exactly: event.id - event.causedBy) ?? Self.causeTooFar
        }
        flags = (event.cause?.code ?? 0) & 0x3F
        if !text.isEmpty { flags |= Self.hasTextBit }
        switch event.kind.payload.field {
        case .demand: number = event.demand.wire
        case .other: number = Int64(bitPattern: event.other)
        case .cause, .none: number = 0
        }
        if hasText, event.kind == .value, text.utf8.count <= 8, !text.utf8.contains(0) {
            var packed: UInt64 = 0
            for (i, byte) in text.utf8.enumerated() { packed |= UInt64(byte) << (8 * UInt64(i)) }
            number = Int64(bitPattern: packed)
            flags |= Self.inlineBit
        }
    }

    /// ``StageEvent/causedBy``: 0 when none or unknown, and when further back than
    /// 4 billion events (see ``causeIsTooFar``).
    var causedBy: EventID {
        causeBack == 0 || causeBack == Self.causeTooFar || EventID(causeBack) >= id ? 0 : id - EventID(causeBack)
    }

    /// The event had a cause, further back than the entry can say.
    var causeIsTooFar: Bool { causeBack == Self.causeTooFar }

    /// A value's short text, kept in the entry itself.
    var inlineText: String? {
        guard textInline else { return nil }
        var bytes: [UInt8] = []
        var packed = UInt64(bitPattern: number)
        while packed != 0 {
            bytes.append(UInt8(truncatingIfNeeded: packed))
            packed >>= 8
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The event again; `text` is looked up by the history when ``hasText``, `thread` is
    /// the name of the entry's thread.
    func event(text: String, thread: String = "") -> StageEvent {
        var e = StageEvent(kind, node: node, time: time, cause: CancelCause(code: cause), text: text)
        e.id = id
        e.causedBy = causedBy
        e.thread = thread
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
