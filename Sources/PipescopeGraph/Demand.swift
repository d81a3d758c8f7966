/// A Combine demand as Pipescope counts it: a finite number of values, or unlimited.
///
/// Adding anything to `.unlimited` stays unlimited, as in Combine. On the wire it is an
/// `int64` where -1 means unlimited.
public enum Demand: Hashable, Sendable, CustomStringConvertible {
    case count(Int)
    case unlimited

    public static let none = Demand.count(0)

    @inlinable
    public init(wire: Int64) {
        self = wire < 0 ? .unlimited : .count(Int(wire))
    }

    @inlinable
    public var wire: Int64 {
        switch self {
        case .unlimited: return -1
        case .count(let n): return Int64(n)
        }
    }

    public static func + (lhs: Demand, rhs: Demand) -> Demand {
        switch (lhs, rhs) {
        case (.count(let a), .count(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .unlimited : .count(sum)
        default:
            return .unlimited
        }
    }

    /// Requested minus delivered, never below zero.
    public func subtracting(_ delivered: Int) -> Demand {
        switch self {
        case .unlimited: return .unlimited
        case .count(let n): return .count(max(0, n - delivered))
        }
    }

    public var description: String {
        switch self {
        case .unlimited: return "unlimited"
        case .count(let n): return String(n)
        }
    }
}
