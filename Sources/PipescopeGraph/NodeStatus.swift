import PipescopeWire

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

    public init(_ wire: WireStatus) {
        switch wire {
        case .subscribing: self = .subscribing
        case .active: self = .active
        case .finished: self = .finished
        case .failed: self = .failed
        case .cancelled: self = .cancelled
        case .UNRECOGNIZED: self = .active
        }
    }

    public var wire: WireStatus {
        switch self {
        case .subscribing: return .subscribing
        case .active: return .active
        case .finished: return .finished
        case .failed: return .failed
        case .cancelled: return .cancelled
        }
    }
}

/// Who cancelled a stage.
public enum CancelCause: String, Hashable, Sendable {
    case downstream, inspector, owner

    public init?(_ wire: WireCancelCause) {
        switch wire {
        case .causeDownstream: self = .downstream
        case .causeInspector: self = .inspector
        case .causeOwner: self = .owner
        case .causeNone, .UNRECOGNIZED: return nil
        }
    }

    public var wire: WireCancelCause {
        switch self {
        case .downstream: return .causeDownstream
        case .inspector: return .causeInspector
        case .owner: return .causeOwner
        }
    }
}
