import PipescopeGraph
import PipescopeWire

/// One event as the history keeps it: 32 bytes instead of a ``WireEvent``'s 96.
///
/// An event has a demand or another stage's id, never both, so one number holds
/// whichever its kind has. A value has neither, so a value text of up to 8 UTF-8 bytes
/// (most numbers, short strings: the probe sends every scalar value's text) is kept in
/// that number. Longer text (a failure, a value's description) lives beside the
/// entries, keyed by position.
struct HistoryEntry: Sendable {
    var node: NodeID
    var time: Int64
    /// The demand of REQUEST and DEMAND, the other stage (or owner) of the kinds that
    /// link two things; 0 otherwise.
    var number: Int64
    var kind: Int32
    var cause: Int16
    var hasText: Bool
    /// The text is in `number` (a value's short text), not beside the entries.
    private(set) var textInline = false

    /// The entry for `event`, whose text (which may differ from the event's own, for
    /// older recordings) is `text`.
    init(_ event: WireEvent, text: String) {
        node = event.node
        time = event.timeNs
        kind = Int32(truncatingIfNeeded: event.kind.rawValue)
        cause = Int16(truncatingIfNeeded: event.cause.rawValue)
        hasText = !text.isEmpty
        number = Self.carriesDemand(event.kind) ? event.demand : Int64(bitPattern: event.other)
        if hasText, event.kind == .eventValue, text.utf8.count <= 8, !text.utf8.contains(0) {
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
    func event(text: String) -> WireEvent {
        var e = WireEvent()
        e.kind = WireEventKind(rawValue: Int(kind)) ?? .UNRECOGNIZED(Int(kind))
        e.node = node
        e.timeNs = time
        if textInline {
            // a value: it has neither demand nor other stage
        } else if Self.carriesDemand(e.kind) {
            e.demand = number
        } else {
            e.other = UInt64(bitPattern: number)
        }
        e.cause = WireCancelCause(rawValue: Int(cause)) ?? .UNRECOGNIZED(Int(cause))
        e.text = text
        return e
    }

    var eventKind: WireEventKind { WireEventKind(rawValue: Int(kind)) ?? .UNRECOGNIZED(Int(kind)) }

    private static func carriesDemand(_ kind: WireEventKind) -> Bool {
        kind == .eventRequest || kind == .eventDemand
    }
}
