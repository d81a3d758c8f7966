import PipescopeGraph

// A batch's timing columns (self_ns, total_ns, and version 4's timed_values): one entry
// per timed event (VALUE, DELIVERED), or, when most are not measured, one per measured
// event with timed_values saying which (see Resources/pipescope.proto).

extension BatchPacking {
    /// Sets the timing columns from one entry per timed event, `measured` of them not 0:
    /// sparse when that is shorter (a measured event's position costs about a byte, an
    /// unmeasured event's two zeros two).
    static func packTimes(_ selfNanos: [UInt64], _ totalNanos: [UInt64], measured: Int, into p: inout WirePackedBatch) {
        guard measured < 2 * (selfNanos.count - measured) else {
            p.selfNs = selfNanos
            p.totalNs = totalNanos
            return
        }
        var positions: [UInt32] = [], ownTimes: [UInt64] = [], totalTimes: [UInt64] = []
        positions.reserveCapacity(measured)
        ownTimes.reserveCapacity(measured)
        totalTimes.reserveCapacity(measured)
        var previous = -1
        for i in selfNanos.indices where selfNanos[i] != 0 || totalNanos[i] != 0 {
            positions.append(UInt32(i - previous - 1))
            previous = i
            ownTimes.append(selfNanos[i])
            totalTimes.append(totalNanos[i])
        }
        p.timedValues = positions
        p.selfNs = ownTimes
        p.totalNs = totalTimes
    }
}

/// Reads the timing columns back, one timed event at a time, in order.
struct TimeColumns {
    private let selfNanos: [UInt64], totalNanos: [UInt64], positions: [UInt32]
    private let sparse: Bool
    /// Timed events seen so far, and entries read.
    private var timed = 0, read = 0
    /// The position of the next measured event (sparse), or -1 when none is left.
    private var nextMeasured = -1

    /// Throws ``FrameError/malformed(_:)`` for columns of different lengths, and for
    /// more positions than `events` (the batch's events: none can name a later one).
    init(_ p: WirePackedBatch, events: Int) throws {
        selfNanos = p.selfNs
        totalNanos = p.totalNs
        positions = p.timedValues
        sparse = !positions.isEmpty
        guard totalNanos.count == selfNanos.count, !sparse || positions.count == selfNanos.count,
              selfNanos.count <= events else {
            throw FrameError.malformed("a packed batch whose cause or timing columns have different lengths")
        }
        if sparse { nextMeasured = Int(positions[0]) }
    }

    /// Sets the next timed event's times (left 0 when not measured).
    @inline(__always)
    mutating func next(into event: inout StageEvent) throws {
        defer { timed += 1 }
        if sparse {
            guard timed == nextMeasured else { return }
        } else if read >= selfNanos.count {
            return
        }
        event.selfNanos = Int64(clamping: selfNanos[read])
        event.totalNanos = Int64(clamping: totalNanos[read])
        read += 1
        if sparse {
            // Positions are differences minus 1, so they only ever move forward.
            nextMeasured = read < positions.count ? nextMeasured + 1 + Int(positions[read]) : -1
        }
    }

    /// Checks that every entry belonged to a timed event of the batch.
    func finish() throws {
        guard read == selfNanos.count, sparse || selfNanos.isEmpty || selfNanos.count == timed else {
            throw FrameError.malformed("a packed batch with more column entries than events of their kinds")
        }
    }
}
