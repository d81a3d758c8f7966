import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// The tick recomputes lints, waits and table rows only for the pipelines the events
/// since the last tick touched (and those time alone changes), and prunes looking only at
/// the stages that ended: after every message of random event streams, they must be what
/// a computation from every stage gives.
final class IncrementalTickTests: XCTestCase {
    func testIncrementalLintsWaitsAndRowsEqualAFullRecomputeAfterEveryMessage() {
        var pileUps = 0
        for seed in 1...40 as ClosedRange<UInt64> {
            var stream = RandomStream(seed: seed)
            var state = AppState(targetName: "random", pid: 1)
            state.warnings.linter.stalledAfter = 1
            state.warnings.linter.neverCompletesAfter = 4
            // Small enough that places pile up and stop within a stream (its stages share
            // four lines), so `pile-up`'s tally kept root by root is checked too.
            state.warnings.linter.pileUpAfter = 3
            state.warnings.linter.pileUpCount = 2
            state.retention = Retention(seconds: 3, maxEndedPipelines: 4, maxEndedInner: 1)
            _ = reduce(&state, .attached(process: "random", pid: 1))
            for step in 0..<160 {
                let message = stream.message()
                let graphBefore = state.cursor.graph
                let liveBefore = state.cursor.liveGraph
                let prunedBefore = state.cursor.lastPrune
                let rowsBefore = state.table.rows.built, viewBefore = state.tableView
                _ = reduce(&state, message)
                let context = "seed \(seed), step \(step), \(message.label)"
                // The warnings are those of the graph the tick found (it prunes after), at
                // the moment on screen (the tick's, or in the past the cursor's).
                if case .tick(let now) = message {
                    let fresh = AppState.Warnings.fromScratch(graphBefore, now: state.lintMoment, linter: state.warnings.linter)
                    XCTAssertEqual(state.warnings.waits, fresh.waits, context)
                    XCTAssertEqual(state.warnings.lints, fresh.lints, context)
                    XCTAssertEqual(state.warnings.groups, fresh.groups, context)
                    XCTAssertEqual(state.warnings.nodes, Set(fresh.lints.map(\.node)), context)
                    pileUps += fresh.lints.filter { $0.kind == .pileUp }.count
                    // Pruning looked only at the stages that ended: the same graph as the
                    // prune that walks every stage.
                    var pruned = liveBefore
                    if now - prunedBefore >= 1_000_000_000 { pruned.prune(now: now, retention: state.retention) }
                    XCTAssertEqual(state.cursor.liveGraph, pruned, context)
                }
                if state.page == .table, message.isAction, state.tableView == viewBefore {
                    // A key that changes nothing the table is made from leaves its rows
                    // as they were (sorted as the key says), for the next tick.
                    let resorted = PlaceFolds.positions(rowsBefore, by: state.table.sort, descending: state.table.descending,
                                                        open: state.table.openPlaces)
                    XCTAssertEqual(state.table.rows.map(\.id), resorted.map { rowsBefore[$0].id }, context)
                    XCTAssertEqual(state.table.rows.built, rowsBefore, context)
                } else if state.page == .table, !message.isBatch {
                    var full = AppState.Table()
                    full.sort = state.table.sort
                    full.descending = state.table.descending
                    full.activity = state.table.activity
                    full.openPlaces = state.table.openPlaces
                    _ = full.refresh(cursor: state.cursor, warnings: state.warnings, now: state.timelineEnd,
                                 hideEnded: state.tree.hideEnded, changes: nil)
                    // How long a row has waited is read when the rows are rebuilt, and the
                    // moment the waits were judged is no input of a rebuild:
                    // between rebuilds it is that of the last one, not the full one's now.
                    let a = state.table.rows.map(\.withoutWaitNanos), b = full.rows.map(\.withoutWaitNanos)
                    XCTAssertEqual(a, b, context)
                    XCTAssertEqual(state.table.locationWidth, full.locationWidth, context)
                    XCTAssertEqual(state.table.timed, full.timed, context)
                }
            }
        }
        XCTAssertGreaterThan(pileUps, 0, "the streams made places pile up (and the tally was checked)")
    }

    func testATickWithoutEventsRecomputesOnlyThePipelinesFallenDue() {
        // Two pipelines, one made 10 s before the other, neither ever subscribed: the
        // first waits at the first tick; a tick 1.5 s after the second was made is due
        // for it (it starts waiting) and for nothing else.
        var state = AppState(targetName: "due", pid: 1)
        state.warnings.linter.stalledAfter = 1
        state.warnings.linter.allowed = [.stalled]  // its message's age would make pipeline 1 due every second
        _ = reduce(&state, .attached(process: "due", pid: 1))
        let t0 = BatchBuilder.baseNanos
        var batch = EventBatch()
        batch.append(NodeInfo(id: 1, operatorName: "Sink", publisherType: "Sink", subscriber: "Sink", thread: "main",
                              createdNanos: t0))
        batch.append(NodeInfo(id: 2, operatorName: "Sink", publisherType: "Sink", subscriber: "Sink", thread: "main",
                              createdNanos: t0 + 10_000_000_000))
        _ = reduce(&state, .batch(batch))
        _ = reduce(&state, .tick(nanos: t0 + 10_000_000_000))
        XCTAssertNil(state.warnings.changed, "the first tick computes every pipeline")
        XCTAssertEqual(state.warnings.waits.pipeline(1)?.reason, .subscription)
        _ = reduce(&state, .tick(nanos: t0 + 10_500_000_000))
        XCTAssertEqual(state.warnings.changed, [], "nothing touched, nothing due, nothing changed")
        _ = reduce(&state, .tick(nanos: t0 + 11_500_000_000))
        XCTAssertEqual(state.warnings.changed, [2], "the second pipeline starts to wait")
        XCTAssertEqual(state.warnings.waits.pipeline(2)?.reason, .subscription)
    }
}

/// Messages of a random inspector session: new pipelines and inner stages, every event
/// kind on random stages (values, demand, ends, owners, adoptions, feeds, forwards,
/// broken contracts), ticks (some seconds apart, so stages wait, lints age and ended
/// pipelines are pruned), sorting, hiding ended pipelines and looking back in history.
private struct RandomStream {
    var random: SeededGenerator
    var now = BatchBuilder.baseNanos
    var nextID: NodeID = 1
    var nodes: [NodeID] = []
    var roots: [NodeID] = []

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func message() -> Message {
        switch random.below(100) {
        case 0..<55: return .batch(batch())
        case 55..<85:
            now += Int64(random.below(2_500)) * 1_000_000
            return .tick(nanos: now)
        case 85..<87: return .action(.sortNext)
        case 87..<88: return .action(.moveDown)
        case 88..<89: return .action(.moveUp)
        case 89..<91: return .action(.invertSort)
        case 91..<94: return .action(.toggleEnded)
        case 94..<97: return .action(.history(-Int(random.below(6)) - 1))
        default: return .action(.historyLive)
        }
    }

    private mutating func pick() -> NodeID { nodes.isEmpty ? 0 : nodes[Int(random.below(UInt64(nodes.count)))] }

    private static let operators = ["Map", "Filter", "PassthroughSubject", "Future", "Just", "FlatMap", "CurrentValueSubject"]

    private mutating func stage(parent: NodeID?, into batch: inout EventBatch) -> NodeID {
        let id = nextID
        nextID += 1
        let name = Self.operators[Int(random.below(UInt64(Self.operators.count)))]
        let location = random.below(3) == 0
            ? SourceLocation(file: "main.swift", line: Int(random.below(4)) + 1, function: "f") : nil
        batch.append(NodeInfo(id: id, parent: parent, operatorName: name, publisherType: "\(name)<Int>",
                              subscriber: parent == nil ? "Sink" : "Map", thread: "main", createdNanos: now,
                              location: location))
        nodes.append(id)
        if parent == nil { roots.append(id) }
        return id
    }

    private mutating func batch() -> EventBatch {
        var batch = EventBatch()
        for _ in 0..<(1 + random.below(8)) {
            now += Int64(random.below(50)) * 1_000_000
            let node = pick()
            switch random.below(20) {
            case 0, 1:
                var parent = stage(parent: nil, into: &batch)
                for _ in 0..<random.below(3) { parent = stage(parent: parent, into: &batch) }
            case 2:
                if node != 0 { _ = stage(parent: node, into: &batch) }
            case 3, 4: batch.events.append(StageEvent(.subscription, node: node, time: now, other: random.below(4) == 0 ? pick() : 0))
            case 5, 6:
                let demand: Demand = random.below(3) == 0 ? .unlimited : .count(Int(random.below(3)))
                batch.events.append(StageEvent(random.below(4) == 0 ? .demand : .request, node: node, time: now, demand: demand))
            case 7, 8, 9: batch.events.append(StageEvent(.value, node: node, time: now, text: "v"))
            case 10: batch.events.append(StageEvent(.finished, node: node, time: now))
            case 11: batch.events.append(StageEvent(.failed, node: node, time: now, text: "boom"))
            case 12:
                let cause: CancelCause = [.downstream, .inspector, .owner][Int(random.below(3))]
                batch.events.append(StageEvent(.cancelled, node: node, time: now, cause: cause))
            case 13: batch.events.append(StageEvent(.owned, node: node, time: now, other: 1 + random.below(3), text: "Owner"))
            case 14: batch.events.append(StageEvent(.ownerReleased, node: node, time: now, other: 1 + random.below(3), text: "Owner"))
            case 15: batch.events.append(StageEvent(.adopt, node: node, time: now, other: pick()))
            case 16: batch.events.append(StageEvent(.feeds, node: node, time: now, other: pick()))
            case 17: batch.events.append(StageEvent(.forward, node: node, time: now, other: pick()))
            case 18: batch.events.append(StageEvent(.contractBroken, node: node, time: now, text: "broke it"))
            default:
                if let root = roots.last {
                    batch.locations.append(LocatedStage(node: root, location: SourceLocation(
                        file: "late.swift", line: Int(random.below(9)), function: "g")))
                }
            }
        }
        return batch
    }
}

private extension PipelineRow {
    var withoutWaitNanos: PipelineRow {
        var row = self
        row.waitNanos = nil
        return row
    }
}

private extension Message {
    var isBatch: Bool {
        if case .batch = self { return true }
        return false
    }

    var isAction: Bool {
        if case .action = self { return true }
        return false
    }


    var label: String {
        switch self {
        case .batch(let batch): return "batch \(batch.events.map { "\($0.kind) \($0.node)>\($0.other)" })"
        case .tick(let nanos): return "tick at \(nanos)"
        default: return "\(self)"
        }
    }
}
