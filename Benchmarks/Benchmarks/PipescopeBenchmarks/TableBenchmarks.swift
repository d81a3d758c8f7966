import Benchmark
import PipescopeGraph
import PipescopeModel
import PipescopeViews
import TerminalKit

// The pipelines table with 10,000 pipelines: what a frame costs when the sort changes
// (the rows sorted again, then drawn; cycling through every column, and by name, once
// the slowest), on a tick (the rows brought up to date and sorted, after the tick's
// lints and pruning: with no event since the last tick, and after a batch touching 100
// pipelines), and when only the drawing is needed.
// The budget is 4 ms per frame at the median. See Benchmarks/README.md.

func tableBenchmarks() {
    let state = TableBench.state(pipelines: 10_000)
    print("table: \(state.table.rows.count) rows, sorted by \(state.table.sort)")
    Benchmark("table/sort and render 10k pipelines 120x40", configuration: .init(scalingFactor: .one)) { benchmark in
        // `>` sorts by the next column: the rows are sorted again, then drawn.
        TableBench.frames(benchmark, from: state) { state in _ = reduce(&state, .action(.sortNext)) }
    }
    Benchmark("table/sort by name and render 10k pipelines 120x40", configuration: .init(scalingFactor: .one)) { benchmark in
        // The text columns were the slow ones: `i` inverts the sort by name each frame.
        var byName = state
        while byName.table.sort != .name { _ = reduce(&byName, .action(.sortNext)) }
        TableBench.frames(benchmark, from: byName) { state in _ = reduce(&state, .action(.invertSort)) }
    }
    Benchmark("table/tick (lints, prune, rows rebuilt and sorted) and render 10k pipelines 120x40",
              configuration: .init(scalingFactor: .one)) { benchmark in
        // A second later each frame: the rates move, so every row is rebuilt and sorted.
        var now = TableBench.t0 + 71_000_000_000
        TableBench.frames(benchmark, from: state) { state in
            now += 1_000_000_000
            _ = reduce(&state, .tick(nanos: now))
        }
    }
    Benchmark("table/batch (1,000 values on 100 pipelines), tick and render 10k pipelines 120x40",
              configuration: .init(scalingFactor: .one)) { benchmark in
        // A busy second: a batch of values on 100 of the pipelines (a different 100 each
        // frame), then the tick: those pipelines' lints and rows change, the rest's not.
        var now = TableBench.t0 + 71_000_000_000
        var frame: UInt64 = 0
        TableBench.frames(benchmark, from: state) { state in
            now += 1_000_000_000
            frame += 1
            var batch = EventBatch()
            for i in 0..<1_000 {
                let p = (frame * 100 + UInt64(i % 100)) * 7_919 % 10_000
                batch.events.append(StageEvent(.value, node: p * 3 + 1, time: now - 500_000_000 + Int64(i), text: String(i)))
            }
            _ = reduce(&state, .batch(batch))
            _ = reduce(&state, .tick(nanos: now))
        }
    }
    Benchmark("table/render 10k pipelines 120x40", configuration: .init(scalingFactor: .one)) { benchmark in
        TableBench.frames(benchmark, from: state) { _ in }
    }
}

enum TableBench {
    static let t0: Int64 = 1_700_000_000_000_000_000

    /// Each iteration: `change` the state, then draw the whole 120x40 screen and diff it
    /// with the frame before, as the inspector does.
    static func frames(_ benchmark: Benchmark, from state: AppState, change: (inout AppState) -> Void) {
        var state = state
        var previous = ScreenBuffer(width: 120, height: 40)
        for _ in benchmark.scaledIterations {
            change(&state)
            var buffer = ScreenBuffer(width: 120, height: 40)
            ScreenView.render(state, theme: .plainUnicode, into: &buffer)
            blackHole(buffer.diff(from: previous).count)
            previous = buffer
        }
    }

    /// `pipelines` pipelines of three stages (`PassthroughSubject → Map → Filter → Sink`),
    /// each delivering a different number of values over the last minute, so every column
    /// has something to sort; on the table, after a tick.
    static func state(pipelines: Int) -> AppState {
        var batch = EventBatch()
        for p in 0..<UInt64(pipelines) {
            let root = p * 3 + 1
            let created = t0 + Int64(p) * 1_000_000
            batch.append(NodeInfo(id: root, parent: nil, operatorName: "Filter", publisherType: "Filter<Map<PassthroughSubject<Int, Never>, Int>>",
                                  subscriber: "Sink", thread: "main", createdNanos: created))
            batch.append(NodeInfo(id: root + 1, parent: root, operatorName: "Map", publisherType: "Map<PassthroughSubject<Int, Never>, Int>",
                                  subscriber: "Filter", thread: "main", createdNanos: created))
            batch.append(NodeInfo(id: root + 2, parent: root + 1, operatorName: "PassthroughSubject",
                                  publisherType: "PassthroughSubject<Int, Never>", subscriber: "Map", thread: "main",
                                  createdNanos: created))
        }
        for i in 0..<(pipelines * 6) {
            let p = UInt64(i * 7_919 % pipelines)
            let time = t0 + 10_000_000_000 + Int64(i % 60) * 1_000_000_000 + Int64(i)
            batch.events.append(StageEvent(.value, node: p * 3 + 1, time: time, text: String(i)))
        }
        batch.events.sort { $0.time < $1.time }
        batch.trailer.sequence = UInt64(batch.events.count)
        var state = AppState(targetName: "bench", pid: 1)
        _ = reduce(&state, .attached(process: "bench", pid: 1))
        _ = reduce(&state, .batch(batch))
        _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
        _ = reduce(&state, .tick(nanos: t0 + 71_000_000_000))
        return state
    }
}
