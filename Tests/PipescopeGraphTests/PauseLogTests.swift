import PipescopeGraph
import XCTest

/// ``PauseLog``: what the gate's trailers say becomes spans of wall-clock time, and how
/// much of any span of time the program spent paused.
final class PauseLogTests: XCTestCase {
    private func paused(since: Int64) -> GateState { GateState(paused: true, pausedSinceNanos: since) }
    private func ended(_ from: Int64, _ to: Int64) -> GateState {
        GateState(endedPause: PauseInterval(fromNanos: from, toNanos: to))
    }

    func testAPauseUnderWayCountsUpToTheMomentAsked() {
        var log = PauseLog()
        log.note(paused(since: 100), at: nil)
        log.note(paused(since: 100), at: nil)  // every batch while paused says it again
        XCTAssertEqual(log.spans, [PauseInterval(fromNanos: 100, toNanos: .max)])
        XCTAssertTrue(log.isPaused)
        XCTAssertEqual(log.overlap(from: 0, to: 150), 50)
        XCTAssertEqual(log.overlap(from: 120, to: 400), 280)
        XCTAssertEqual(log.overlap(from: 0, to: 100), 0, "a moment before the pause counts none of it")
    }

    func testAnEndedPauseClosesItsSpanOnce() {
        var log = PauseLog()
        log.note(paused(since: 100), at: nil)
        log.note(ended(100, 300), at: 310)
        log.note(GateState(), at: 320)
        XCTAssertEqual(log.spans, [PauseInterval(fromNanos: 100, toNanos: 300)])
        XCTAssertFalse(log.isPaused)
        XCTAssertEqual(log.overlap(from: 0, to: 1_000), 200)
        XCTAssertEqual(log.overlap(from: 250, to: 1_000), 50)
        // A second pause, said only when it ended (both within one flush).
        log.note(ended(500, 600), at: 610)
        XCTAssertEqual(log.overlap(from: 0, to: 1_000), 300)
        XCTAssertEqual(log.overlap(from: 200, to: 550), 150)
    }

    func testAnEndNeverSaidIsTheFirstEventAfter() {
        // The batch that said the pause ended was skipped (a slow inspector got a snapshot).
        var log = PauseLog()
        log.note(paused(since: 100), at: nil)
        log.note(GateState(), at: 900)
        XCTAssertEqual(log.spans, [PauseInterval(fromNanos: 100, toNanos: 900)])
        // Open, and then the end of a later pause: the open one ends where that began.
        log.note(paused(since: 1_000), at: nil)
        log.note(ended(2_000, 2_500), at: 2_600)
        XCTAssertEqual(log.spans, [PauseInterval(fromNanos: 100, toNanos: 900), PauseInterval(fromNanos: 1_000, toNanos: 2_000),
                                   PauseInterval(fromNanos: 2_000, toNanos: 2_500)])
    }

    func testAGraphKeepsItsPausesAcrossASnapshotAndFoldsThemFromTrailers() {
        var graph = Graph()
        var batch = EventBatch()
        batch.trailer.gate = paused(since: 5)
        graph.fold(batch)
        graph.load(GraphSnapshot())
        XCTAssertEqual(graph.pauses.spans, [PauseInterval(fromNanos: 5, toNanos: .max)],
                       "a snapshot says nothing of pauses: they stay")
    }
}
