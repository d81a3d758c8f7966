import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// The warnings list shows the same mistake in the same place once, with a count,
/// newest first.
final class LintGroupTests: XCTestCase {
    private func state(_ batch: EventBatch) -> AppState {
        var state = AppState(targetName: "demo", pid: 4242)
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "demo", pid: 4242))
        _ = reduce(&state, .batch(batch))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 1_000_000_000))
        return state
    }

    func testTheSameForgottenRequestMadeSevenTimesIsOneRow() throws {
        var b = BatchBuilder()
        b.flatMapRoot(1)
        for i in 0..<7 { b.forgottenRequest(10 + NodeID(i) * 10) }
        let state = state(b.build())
        XCTAssertEqual(state.warnings.lints.count, 7)
        XCTAssertEqual(state.warnings.groups.count, 1)
        let group = try XCTUnwrap(state.warnings.groups.first)
        XCTAssertEqual(group.kind, .unretainedCancellable)
        XCTAssertEqual(group.count, 7)
        XCTAssertEqual(group.lints.map(\.node), [70, 60, 50, 40, 30, 20, 10], "newest first")
        XCTAssertEqual(group.newest.node, 70)
        XCTAssertEqual(group.root, 70)
    }

    func testDifferentKindsStagesAndPipelinesAreDifferentRowsNewestFirst() {
        var b = BatchBuilder()
        b.flatMapRoot(1)
        b.forgottenRequest(10)
        b.forgottenRequest(20)
        // The same lint on another pipeline shape: a Just whose sink was dropped.
        b.subscribe(30, op: "Just", type: "Just<Int>", subscriber: "Sink")
        b.subscription(30)
        b.cancel(30, cause: .owner)
        let state = state(b.build())
        XCTAssertEqual(state.warnings.groups.map(\.count), [1, 2], "the Just's is newer, so first")
        XCTAssertEqual(state.warnings.groups.map(\.newest.node), [30, 20])
    }

    func testTheKeyIsTheKindTheStageAndItsPipeline() {
        var b = BatchBuilder()
        b.subscribe(1, op: "Sink", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Map", type: "Map<A>", subscriber: "Sink")
        b.subscribe(3, parent: 2, op: "Rude", type: "Rude", subscriber: "Map")
        b.subscribe(4, op: "Sink", subscriber: "Sink")
        b.subscribe(5, parent: 4, op: "Map", type: "Map<A>", subscriber: "Sink")
        b.subscribe(6, op: "Other", subscriber: "Assign")
        b.subscribe(7, parent: 6, op: "Map", type: "Map<A>", subscriber: "Other")
        let graph = Graph.folding(b.build())
        let lints = [
            Lint(kind: .demandViolation, node: 2, message: "a"),
            Lint(kind: .demandViolation, node: 5, message: "b"),   // same stage kind, same pipeline shape
            Lint(kind: .stalled, node: 5, message: "c"),           // another kind
            Lint(kind: .demandViolation, node: 7, message: "d"),   // another pipeline
            Lint(kind: .demandViolation, node: 3, message: "e"),   // another stage in the first pipeline
        ]
        let groups = LintGroup.grouping(lints, in: graph)
        XCTAssertEqual(groups.map { $0.lints.map(\.node) }, [[7], [5, 2], [5], [3]])
        XCTAssertEqual(groups.map(\.root), [6, 4, 4, 1], "the newest lint's pipeline")
    }
}
