import DequeModule
import PipescopeGraph

/// How an operator's outputs follow from its inputs: what the tap records as the cause
/// of an output that is not delivered inside the input that made it.
///
/// Within one thread an output's cause is the delivery it runs inside (``ThreadFrames``);
/// that covers `map`, `filter`, `flatMap`, `collect(3)` and every operator that emits
/// while it receives. The operators here emit later, on a scheduler's thread, so the tap
/// keeps their inputs (by number, never the values) until the output they make.
/// Computed once per publisher type (``TypeNames``).
package enum CausePolicy: UInt8, Sendable {
    /// Emits while receiving: nothing kept.
    case inline
    /// Emits its inputs later and in order (`receive(on:)`, `delay`, `buffer`): an output
    /// is caused by the oldest input not yet emitted.
    case inOrder
    /// Emits the newest input later (`debounce`, `throttle`) or what it gathered until a
    /// timer fires (`collect(.byTime)`): an output is caused by the newest input. (The
    /// inspector lists everything a gathering stage received since its last output.)
    case latest

    /// The policy of an operator by its short type name ("ReceiveOn", "Debounce").
    package init(operatorName: String) {
        switch operatorName {
        case "ReceiveOn", "Delay", "Buffer": self = .inOrder
        case "Debounce", "Throttle", "CollectByTime": self = .latest
        default: self = .inline
        }
    }
}

/// The inputs that asynchronous stages received and have not yet turned into outputs,
/// by event number, bounded per stage.
///
/// Rules:
/// - Only stages whose ``CausePolicy`` is not `.inline` have an entry; the hot path
///   checks a flag on the stage before touching this.
/// - At most ``limit`` inputs are kept per stage (oldest forgotten first): a stage whose
///   scheduler never runs cannot grow it.
/// - Holds numbers only. Not thread-safe by itself: it lives inside ``StageRegistry``'s
///   locked state.
struct CauseLinks {
    static let limit = 1024
    private var pending: [NodeID: Deque<EventID>] = [:]

    /// Stage `node` (of `policy`) received the input numbered `event`.
    mutating func received(_ event: EventID, by node: NodeID, policy: CausePolicy) {
        switch policy {
        case .inline: return
        case .inOrder:
            pending[node, default: []].append(event)
            if pending[node]!.count > Self.limit { pending[node]!.removeFirst() }
        case .latest:
            pending[node] = [event]
        }
    }

    /// The cause of an output of stage `node` made outside the input that caused it:
    /// taken from what it received, by its policy; nil when it kept none.
    mutating func take(for node: NodeID, policy: CausePolicy) -> EventID? {
        guard var inputs = pending[node], !inputs.isEmpty else { return nil }
        let cause: EventID?
        switch policy {
        case .inline: return nil
        case .inOrder: cause = inputs.popFirst()
        case .latest:
            cause = inputs.last
            inputs.removeAll()
        }
        pending[node] = inputs
        return cause
    }

    /// Stage `node` emitted while receiving `event`: that input is used up.
    mutating func used(_ event: EventID, by node: NodeID) {
        guard pending[node]?.last == event else { return }
        pending[node]!.removeLast()
    }

    mutating func forget(_ node: NodeID) {
        pending[node] = nil
    }

    var count: Int { pending.count }
}
