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
    let fixture = Fixture {
        let state = TableBench.state(pipelines: 10_000)
        print("table: \(state.table.rows.count) rows, sorted by \(state.table.sort)")
        return state
    }
    let byName = Fixture {
        var byName = fixture.value
        while byName.table.sort != .name { _ = reduce(&byName, .action(.sortNext)) }
        return byName
    }
    let located = Fixture {
        let state = TableBench.state(pipelines: 10_000, places: 100)
        print("table: \(state.table.rows.count) rows made at 100 places, \(state.warnings.lints.count) lints")
        return state
    }
    let working = (0..<6).map { _ in TableBench.Working() }
    Benchmark("table/sort and render 10k pipelines 120x40", configuration: .init(scalingFactor: .one)) { benchmark in
        // `>` sorts by the next column: the rows are sorted again, then drawn.
        TableBench.frames(benchmark, working[0], from: fixture) { state in _ = reduce(&state, .action(.sortNext)) }
    } setup: {
        _ = fixture.value
    }
    Benchmark("table/sort by name and render 10k pipelines 120x40", configuration: .init(scalingFactor: .one)) { benchmark in
        // The text columns were the slow ones: `i` inverts the sort by name each frame.
        TableBench.frames(benchmark, working[1], from: byName) { state in _ = reduce(&state, .action(.invertSort)) }
    } setup: {
        _ = byName.value
    }
    Benchmark("table/tick (lints, prune, rows rebuilt and sorted) and render 10k pipelines 120x40",
              configuration: .init(scalingFactor: .one)) { benchmark in
        // A second later each frame: the rates move, so every row is rebuilt and sorted.
        TableBench.frames(benchmark, working[2], from: fixture) { state in
            working[2].now += 1_000_000_000
            _ = reduce(&state, .tick(nanos: working[2].now))
        }
    } setup: {
        _ = fixture.value
    }
    Benchmark("table/batch (1,000 values on 100 pipelines), tick and render 10k pipelines 120x40",
              configuration: .init(scalingFactor: .one)) { benchmark in
        // A busy second: a batch of values on 100 of the pipelines (a different 100 each
        // frame), then the tick: those pipelines' lints and rows change, the rest's not.
        TableBench.frames(benchmark, working[3], from: fixture) { state in
            working[3].now += 1_000_000_000
            working[3].frame += 1
            _ = reduce(&state, .batch(TableBench.busySecond(frame: working[3].frame, now: working[3].now)))
            _ = reduce(&state, .tick(nanos: working[3].now))
        }
    } setup: {
        _ = fixture.value
    }
    Benchmark("table/batch (1,000 values on 100 pipelines), tick and render 10k pipelines at 100 places 120x40",
              configuration: .init(scalingFactor: .one)) { benchmark in
        // The same busy second on pipelines that each have a location, 100 a place: the
        // lints keep them counted by place (`pile-up`: a touched pipeline's place is
        // looked up; none piles up, all having been made in the fixture's first 10 s).
        TableBench.frames(benchmark, working[5], from: located) { state in
            working[5].now += 1_000_000_000
            working[5].frame += 1
            _ = reduce(&state, .batch(TableBench.busySecond(frame: working[5].frame, now: working[5].now)))
            _ = reduce(&state, .tick(nanos: working[5].now))
        }
    } setup: {
        _ = located.value
    }
    Benchmark("table/render 10k pipelines 120x40", configuration: .init(scalingFactor: .one)) { benchmark in
        TableBench.frames(benchmark, working[4], from: fixture) { _ in }
    } setup: {
        _ = fixture.value
    }
}

enum TableBench {
    static let t0: Int64 = 1_700_000_000_000_000_000

    /// One benchmark's own copy of the state, changed from sample to sample as the
    /// inspector's is from frame to frame. (A fresh copy of the fixture in each sample
    /// timed the copy too: its first change copied every table the fixture shares.)
    final class Working: @unchecked Sendable {
        var state: AppState?
        var previous = ScreenBuffer(width: 120, height: 40)
        /// The clock and the frame count of the benchmarks that move them.
        var now = TableBench.t0 + 71_000_000_000
        var frame: UInt64 = 0
    }

    /// Each iteration: `change` the state, then draw the whole 120x40 screen and diff it
    /// with the frame before, as the inspector does. The first sample (the warm-up,
    /// not counted) copies the fixture.
    static func frames(_ benchmark: Benchmark, _ working: Working, from fixture: Fixture<AppState>,
                       change: (inout AppState) -> Void) {
        if working.state == nil { working.state = fixture.value }
        for _ in benchmark.scaledIterations {
            change(&working.state!)
            var buffer = ScreenBuffer(width: 120, height: 40)
            ScreenView.render(working.state!, theme: .plainUnicode, into: &buffer)
            blackHole(buffer.diff(from: working.previous).count)
            working.previous = buffer
        }
    }

    /// 1,000 values on 100 of the 10,000 pipelines, a different 100 each frame.
    static func busySecond(frame: UInt64, now: Int64) -> EventBatch {
        var batch = EventBatch()
        for i in 0..<1_000 {
            let p = (frame * 100 + UInt64(i % 100)) * 7_919 % 10_000
            batch.events.append(StageEvent(.value, node: p * 3 + 1, time: now - 500_000_000 + Int64(i), text: String(i)))
        }
        return batch
    }

    /// `pipelines` pipelines of three stages (`PassthroughSubject → Map → Filter → Sink`),
    /// each delivering a different number of values over the last minute, so every column
    /// has something to sort; on the table, after a tick. With `places`, each root has a
    /// location, pipeline `p` at place `p % places`.
    static func state(pipelines: Int, places: Int? = nil) -> AppState {
        var batch = EventBatch()
        for p in 0..<UInt64(pipelines) {
            let root = p * 3 + 1
            let created = t0 + Int64(p) * 1_000_000
            let location = places.map { SourceLocation(file: "/src/App/Screen\(Int(p) % $0).swift", line: 42,
                                                       function: "Screen\(Int(p) % $0).open(item:)") }
            batch.append(NodeInfo(id: root, parent: nil, operatorName: "Filter", publisherType: "Filter<Map<PassthroughSubject<Int, Never>, Int>>",
                                  subscriber: "Sink", thread: "main", createdNanos: created, location: location))
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
