/// Where a stage is in its life.
public enum NodeStatus: String, Hashable, Sendable, CaseIterable {
    case subscribing, active, finished, failed, cancelled

    /// Finished, failed and cancelled stages receive nothing more (if Combine's rules hold).
    public var isTerminal: Bool {
        switch self {
        case .subscribing, .active: return false
        case .finished, .failed, .cancelled: return true
        }
    }
}

/// Who cancelled a stage.
public enum CancelCause: String, Hashable, Sendable {
    case downstream, inspector, owner

    /// A small number for compact records (the tap's buffer, the history): the wire
    /// protocol's `CancelCause` number. 0 is no cause.
    public var code: UInt8 {
        switch self {
        case .downstream: return 1
        case .inspector: return 2
        case .owner: return 3
        }
    }

    /// The cause with this ``code``; nil for 0 or a number this build does not know.
    @inlinable
    public init?(code: UInt8) {
        switch code {
        case 1: self = .downstream
        case 2: self = .inspector
        case 3: self = .owner
        default: return nil
        }
    }
}
