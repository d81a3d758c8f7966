import PipescopeGraph

// The wire's enums and the domain's, converted in one place. The domain's raw numbers are
// the wire's, so an event kind or a cause crosses as one byte.

extension EventKind {
    /// The kind a wire number names; ``EventKind/unknown`` for one this build does not know.
    public init(wire: WireEventKind) { self.init(wireNumber: wire.rawValue) }


    public var wire: WireEventKind { WireEventKind(rawValue: Int(rawValue)) ?? .eventUnknown }
}

extension NodeStatus {
    public init(wire: WireStatus) {
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

extension CancelCause {
    /// The cause a wire number names; nil for none or one this build does not know.
    public init?(wire: WireCancelCause) {
        guard wire.rawValue > 0, wire.rawValue <= Int(UInt8.max) else { return nil }
        self.init(code: UInt8(wire.rawValue))
    }

    public var wire: WireCancelCause { WireCancelCause(rawValue: Int(code)) ?? .causeNone }
}
