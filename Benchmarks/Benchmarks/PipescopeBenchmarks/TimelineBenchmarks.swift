import Benchmark
import PipescopeGraph
import PipescopeModel
import PipescopeViews
import TerminalKit

/// The timeline screen (`T`) at 200x60 over 10,000 stages and 1,000,000 kept events
/// (100 values a stage over 100 s): every lane on screen is drawn from the history's
/// times, at the default zoom and zoomed out to fit all 100 s.
func timelineBenchmarks() {
    let state = Fixture { TimelineBench.state() }
    let fitted = Fixture {
        var fitted = state.value
        _ = reduce(&fitted, .action(.fitTimeline))
        return fitted
    }
    for (name, fixture) in [("100 ms/col", state), ("all 100 s", fitted)] {
        Benchmark("render/timeline screen 200x60, 10k stages, 1M events, \(name)",
                  configuration: .init(scalingFactor: .one)) { benchmark in
            let s = fixture.value
            for _ in benchmark.scaledIterations {
                var buffer = ScreenBuffer(width: 200, height: 60)
                ScreenView.render(s, theme: .plainUnicode, into: &buffer)
                blackHole(buffer)
            }
        } setup: {
            _ = fixture.value
        }
    }
}

enum TimelineBench {
    static let start: Int64 = 1_700_000_000_000_000_000

    static func state() -> AppState {
        let stages = 10_000, events = 1_000_000
        var state = AppState(targetName: "bench", pid: 1)
        state.historyLimit = events + stages
        _ = reduce(&state, .attached(process: "bench", pid: 1))
        var setup = EventBatch()
        for id in 1...UInt64(stages) {
            setup.append(NodeInfo(id: id, parent: id % 10 == 1 ? nil : id - 1, operatorName: "Map",
                                  publisherType: "Map<PassthroughSubject<Int, Never>, Int>", subscriber: "Sink",
                                  thread: "", createdNanos: start))
            setup.events.append(StageEvent(.subscription, node: id, time: start))
            setup.events.append(StageEvent(.request, node: id, time: start, demand: .unlimited))
        }
        _ = reduce(&state, .batch(setup))
        let chunk = 10_000
        for first in stride(from: 0, to: events, by: chunk) {
            var batch = EventBatch()
            for i in first..<first + chunk {
                batch.events.append(StageEvent(.value, node: UInt64(i % stages) + 1,
                                               time: start + Int64(i) * 100_000, text: String(i)))
            }
            _ = reduce(&state, .batch(batch))
        }
        _ = reduce(&state, .tick(nanos: start + Int64(events) * 100_000))
        _ = reduce(&state, .action(.toggleTimeline))
        _ = reduce(&state, ScreenView.resized(width: 200, height: 60))
        precondition(state.cursor.log.end - state.cursor.log.start >= events, "every event kept")
        return state
    }
}
