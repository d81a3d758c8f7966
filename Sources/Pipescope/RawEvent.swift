import PipescopeGraph
import PipescopeWire

/// An event as the hot path records it: plain values, no strings. It becomes a
/// ``WireEvent`` off the hot path, when the buffer is flushed.
struct RawEvent {
    /// Indirect: only subscribes and failures carry one, and inline it would make
    /// every buffered event as large as a NodeInfo.
    indirect enum Payload {
        case none
        case info(WireNodeInfo)
        case error(any Error)
        /// A value of a stage whose every value is captured.
        case value(Any)
        /// Words already made (an owner's name, a broken contract).
        case text(String)
    }

    var kind: WireEventKind
    var node: NodeID
    var time: Int64
    var demand: Int64 = 0
    var other: NodeID = 0
    var cause: WireCancelCause = .causeNone
    var payload: Payload = .none
}
