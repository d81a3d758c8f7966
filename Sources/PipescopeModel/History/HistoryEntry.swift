import PipescopeGraph

/// One event as the history keeps it: 32 bytes instead of a ``StageEvent``'s 72.
///
/// An event has a demand or another stage's id, never both (``EventKind/payload``), so
/// one number holds whichever its kind has. A value has neither, so a value text of up
/// to 8 UTF-8 bytes (most numbers, short strings: the probe sends every scalar value's
/// text) is kept in that number. Longer text (a failure, a value's description) lives
/// beside the entries, keyed by position.
struct HistoryEntry: Sendable {
    var node: NodeID
    var time: Int64
    /// The demand of request and demand events (-1 unlimited), the other stage (or owner)
    /// of the kinds that link two things; 0 otherwise.
    var number: Int64
    var kind: EventKind
    /// ``CancelCause/code``; 0 for none.
    var cause: UInt8
    var hasText: Bool
    /// The text is in `number` (a value's short text), not beside the entries.
    private(set) var textInline = false

    /// The entry for `event`, whose text (which may differ from the event's own, for
    /// older recordings) is `text`.
    init(_ event: StageEvent, text: String) {
        node = event.node
        time = event.time
        kind = event.kind
        cause = event.cause?.code ?? 0
        hasText = !text.isEmpty
        switch event.kind.payload.field {
        case .demand: number = event.demand.wire
        case .other: number = Int64(bitPattern: event.other)
        case .cause, .none: number = 0
        }
        if hasText, event.kind == .value, text.utf8.count <= 8, !text.utf8.contains(0) {
            var packed: UInt64 = 0
            for (i, byte) in text.utf8.enumerated() { packed |= UInt64(byte) << (8 * UInt64(i)) }
            number = Int64(bitPattern: packed)
            textInline = true
        }
    }

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

    /// The event again; `text` is looked up by the history when ``hasText``.
    func event(text: String) -> StageEvent {
        var e = StageEvent(kind, node: node, time: time, cause: CancelCause(code: cause), text: text)
        guard !textInline else { return e }  // a value: it has neither demand nor other stage
        switch kind.payload.field {
        case .demand: e.demand = Demand(wire: number)
        case .other: e.other = UInt64(bitPattern: number)
        case .cause, .none: break
        }
        return e
    }
}
