@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeGraph
import XCTest

/// The probe prunes when its graph has grown past twice its size after the last prune
/// (and by at least 16,384 stages), not only once a second: a program that makes and
/// ends pipelines faster than that does not hold every one of them until the clock's prune.
final class PruneOnGrowthTests: XCTestCase {
    /// `count` pipelines `subject → map → sink`, each cancelled at once: two stages each.
    private func makeAndEnd(_ count: Int, on subject: PassthroughSubject<Int, Never>) {
        for _ in 0..<count { subject.map { $0 }.sink { _ in }.cancel() }
    }

    func testAGraphThatGrowsPastItsThresholdIsPrunedWithoutWaitingForTheClock() {
        let probe = Probe(bufferCapacity: 1 << 20, retention: Retention(seconds: 3_600, maxEndedPipelines: 10))
        probe.enable()
        defer { probe.disable() }
        probe.flush()
        // From here on the clock starts no prune: only the graph's growth can.
        probe.state.withLockedValue { $0.lastPrune = .max }
        let subject = PassthroughSubject<Int, Never>()

        makeAndEnd(5_000, on: subject)
        probe.flush()
        XCTAssertEqual(probe.graph.nodes.count, 10_000, "10,000 stages is under 16,384: no prune yet")

        makeAndEnd(5_000, on: subject)
        probe.flush()
        XCTAssertEqual(probe.graph.nodes.count, 20, "past 16,384: pruned to the last 10 ended pipelines")
        XCTAssertEqual(probe.liveStageCount, 0)
    }
}
