import PipescopeGraph
import PipescopeWire

/// An event as the hot path records it: plain data, and never a user object.
///
/// It becomes a ``WireEvent`` on the flush thread. Everything a payload holds is ours or
/// the standard library's (numbers, `String`s, node info we built), so keeping it until
/// the flush extends no user object's lifetime, and formatting it there runs no user code.
struct RawEvent {
    enum Payload {
        case none
        /// A new stage's static facts (boxed: only subscribes carry one).
        case info(NodeInfoBox)
        /// Words already made on the recording thread: a value's or an error's
        /// description, an owner's name, a broken contract.
        case text(String)
        /// A value of a type whose text needs no user code, kept as plain data and
        /// formatted at the flush (see ``ValueCapture``).
        case scalar(ScalarValue)
    }

    var kind: WireEventKind
    var node: NodeID
    var time: Int64
    var demand: Int64 = 0
    var other: NodeID = 0
    var cause: WireCancelCause = .causeNone
    var payload: Payload = .none
}

/// A subscribe's node info, behind a reference so that events stay small.
final class NodeInfoBox: @unchecked Sendable {
    let info: WireNodeInfo
    init(_ info: WireNodeInfo) { self.info = info }
}
