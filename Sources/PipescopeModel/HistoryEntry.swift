import PipescopeGraph
import PipescopeWire

/// One event as the history keeps it: 32 bytes instead of a ``WireEvent``'s 96.
///
/// An event has a demand or another stage's id, never both, so one number holds
/// whichever its kind has. Text (a failure, a value's description) lives beside the
/// entries, keyed by position, since most events have none.
struct HistoryEntry: Sendable {
    var node: NodeID
    var time: Int64
    /// The demand of REQUEST and DEMAND, the other stage (or owner) of the kinds that
    /// link two things; 0 otherwise.
    var number: Int64
    var kind: Int32
    var cause: Int16
    var hasText: Bool

    init(_ event: WireEvent) {
        node = event.node
        time = event.timeNs
        kind = Int32(truncatingIfNeeded: event.kind.rawValue)
        cause = Int16(truncatingIfNeeded: event.cause.rawValue)
        hasText = !event.text.isEmpty
        number = Self.carriesDemand(event.kind) ? event.demand : Int64(bitPattern: event.other)
    }

    /// The event again; `text` is looked up by the history when ``hasText``.
    func event(text: String) -> WireEvent {
        var e = WireEvent()
        e.kind = WireEventKind(rawValue: Int(kind)) ?? .UNRECOGNIZED(Int(kind))
        e.node = node
        e.timeNs = time
        if Self.carriesDemand(e.kind) { e.demand = number } else { e.other = UInt64(bitPattern: number) }
        e.cause = WireCancelCause(rawValue: Int(cause)) ?? .UNRECOGNIZED(Int(cause))
        e.text = text
        return e
    }

    var eventKind: WireEventKind { WireEventKind(rawValue: Int(kind)) ?? .UNRECOGNIZED(Int(kind)) }

    private static func carriesDemand(_ kind: WireEventKind) -> Bool {
        kind == .eventRequest || kind == .eventDemand
    }
}
