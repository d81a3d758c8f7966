import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// The TIME column names the costliest operator, never the pipeline (#43 item 7).
final class SlowStageNameTests: XCTestCase {
    func testALabelledStageIsNamedByItsOperatorNotItsLabel() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "profile avatar", type: "Map<Just<Int>, Int>", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Just", type: "Just<Int>", subscriber: "profile avatar")
        for _ in 0..<5 {
            // A value from the Just runs the labelled Map's code (3.3 µs), then the sink's.
            b.add(.value, 2) { $0.selfNanos = 3_300; $0.totalNanos = 3_500; $0.thread = "main" }
            b.add(.value, 1) { $0.selfNanos = 100; $0.totalNanos = 100; $0.thread = "main" }
        }
        var state = AppState(targetName: "t")
        _ = reduce(&state, .attached(process: "t", pid: 1))
        _ = reduce(&state, .batch(b.build()))
        _ = reduce(&state, .tick(nanos: BatchBuilder.baseNanos + 1_000_000_000))
        let row = try XCTUnwrap(state.table.rows.first { $0.id == 1 })
        let slowest = try XCTUnwrap(row.slowest)
        XCTAssertEqual(slowest, SlowStage(node: 1, name: "Map", p50: 3_300),
                       "the label names the pipeline; the code that costs is its Map")
    }
}
