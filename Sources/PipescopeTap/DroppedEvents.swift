import PipescopeGraph

/// The events one turn of ``EventRing`` could not keep: how many, of which stages, and
/// from when, so that what was lost is said where it was lost (the probe turns the stages
/// into their pipelines at the flush, ``BatchTrailer/droppedByPipeline``).
///
/// Rules:
/// - Counting a drop costs a dictionary update under the registry's lock, on the drop
///   path only: an event that fits costs nothing more.
/// - At most ``stageLimit`` stages are told apart in one turn; drops of further stages
///   are counted under stage 0 ("a stage not told apart"), so a flood of new stages
///   cannot grow it without bound.
/// - Plain data only (numbers), like everything in the ring.
///
/// ```swift
/// var drops = DroppedEvents()
/// drops.count(node: 7, time: eventTicks())
/// drops.total          // 1
/// drops.byNode[7]      // 1
/// ```
package struct DroppedEvents: Sendable {
    /// Events dropped this turn, by the stage they belonged to (0: not told apart).
    package private(set) var byNode: [NodeID: UInt64] = [:]
    /// Events dropped this turn.
    package private(set) var total: UInt64 = 0
    /// When the first of them happened, in ``eventTicks()`` (0: none).
    package private(set) var firstTicks: Int64 = 0

    static let stageLimit = 4_096

    package init() {}

    package var isEmpty: Bool { total == 0 }

    /// Counts one dropped event of stage `node`, which happened at `time` (ticks).
    @inline(never)
    package mutating func count(node: NodeID, time: Int64) {
        if total == 0 { firstTicks = time }
        total &+= 1
        if let i = byNode.index(forKey: node) {
            byNode.values[i] &+= 1
        } else {
            byNode[byNode.count < Self.stageLimit ? node : 0, default: 0] &+= 1
        }
    }

    /// When the first of them happened, in wall-clock nanoseconds by `clock`; 0 when none.
    package func firstNanos(_ clock: TickClock.Anchor) -> Int64 {
        total == 0 ? 0 : clock.wallNanos(ofTicks: firstTicks)
    }

    /// Forgets this turn's drops, keeping the table's storage.
    mutating func removeAll() {
        byNode.removeAll(keepingCapacity: true)
        total = 0
        firstTicks = 0
    }
}
