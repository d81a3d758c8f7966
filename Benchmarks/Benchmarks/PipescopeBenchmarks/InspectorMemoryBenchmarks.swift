import Benchmark
import CMallocInfo
import CPipescopeMemory
import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeViews

/// The inspector's memory as a user feels it: its whole state (history entries and
/// texts, checkpoints, lanes, per-stage state, the table, lints) after 1,000,000 events
/// of a busy program, divided by the events its history keeps.
///
/// The stream: 100 long-lived `subject → map → filter → sink` pipelines (300 stages)
/// receiving values, and, in every batch, 10 short pipelines that subscribe, deliver and
/// finish and 5 that their sink cancels; 10,000 events a second of the program's time
/// (1M events: 100 s), a tick after every batch as the app loop sends them. The history
/// keeps its default 100,000 events; the rest are evicted.
///
///     cd Benchmarks && swift package benchmark --filter "inspector/.*"
///
/// Three figures: the heap the state holds (malloc's bytes in use, after the stream,
/// less before it) per event kept; the process's resident memory grown over the stream,
/// per event kept (what `top` shows), after malloc gave back what it held free, as the
/// inspector's loop has it do every 5 s (the figure before that is printed too); and
/// the events kept. The resident figure means something only in a process that built no
/// other benchmark's fixture (they are made when their benchmark runs), after a short
/// stream that pages the code in, hence the filter above.
func inspectorMemoryBenchmarks() {
    Benchmark("inspector/memory per event kept, 1M events",
              configuration: .init(metrics: [.custom("heap bytes per event kept", useScalingFactor: false),
                                             .custom("resident bytes per event kept", useScalingFactor: false),
                                             .custom("events kept", polarity: .prefersLarger, useScalingFactor: false)],
                                   warmupIterations: 0, scalingFactor: .one, maxDuration: .seconds(600),
                                   maxIterations: 1)) { benchmark in
        let figures = InspectorMemory.measure(events: 1_000_000)
        benchmark.measurement(.custom("heap bytes per event kept", useScalingFactor: false), figures.heapPerEvent)
        benchmark.measurement(.custom("resident bytes per event kept", useScalingFactor: false), figures.residentPerEvent)
        benchmark.measurement(.custom("events kept", polarity: .prefersLarger, useScalingFactor: false), figures.kept)
        func perKept(_ bytes: Int) -> Int { bytes / max(1, figures.kept) }
        print("inspector memory: \(figures.kept) events kept of \(figures.events); heap +\(figures.heapBytes / 1024) KiB "
            + "(\(figures.heapPerEvent) B an event kept), resident +\(figures.residentBytes / 1024) KiB "
            + "(\(figures.residentPerEvent) B an event kept; \(perKept(figures.untrimmedResidentBytes)) B before malloc_trim, which took \(figures.trimMicros) µs); \(figures.stages) stages in the graph, "
            + "\(figures.checkpoints) checkpoints. Per event kept: the history \(perKept(figures.historyBytes)) B "
            + "(its entries and texts \(perKept(figures.historyEntriesBytes)) B as counted, the rest its base and "
            + "checkpoint graphs and stage descriptions), the live graph \(perKept(figures.liveGraphBytes)) B, the "
            + "table \(perKept(figures.tableBytes)) B, the tree \(perKept(figures.treeBytes)) B, the warnings "
            + "\(perKept(figures.warningsBytes)) B, the lanes \(perKept(figures.lanesBytes)) B, the rest of the state "
            + "\(perKept(figures.restBytes)) B")
    }
}

enum InspectorMemory {
    struct Figures {
        var events = 0
        var kept = 0
        var heapBytes = 0
        var residentBytes = 0
        var stages = 0
        var checkpoints = 0
        /// The heap released with each part, in bytes.
        var historyBytes = 0, historyEntriesBytes = 0, lanesBytes = 0, restBytes = 0
        var liveGraphBytes = 0, tableBytes = 0, treeBytes = 0, warningsBytes = 0
        var heapPerEvent: Int { kept > 0 ? heapBytes / kept : 0 }
        var residentPerEvent: Int { kept > 0 ? residentBytes / kept : 0 }
        /// Resident memory grown before malloc gave back what it held free.
        var untrimmedResidentBytes = 0
        /// How long that took (the inspector does it every 5 s).
        var trimMicros = 0
    }

    static func measure(events target: Int) -> Figures {
        var figures = Figures()
        // A short stream first, dropped: the code the stream runs is paged in, and
        // malloc's arenas set up, before the figures start.
        _ = stream(events: 20_000)
        _ = pipescope_release_free_memory()
        let heapBefore = heapInUse()
        let residentBefore = residentBytes()
        var (state, events) = stream(events: target)
        figures.events = events
        figures.heapBytes = heapInUse() - heapBefore
        figures.untrimmedResidentBytes = residentBytes() - residentBefore
        let trimStart = DispatchTime.now().uptimeNanoseconds
        _ = pipescope_release_free_memory()
        figures.trimMicros = Int(DispatchTime.now().uptimeNanoseconds - trimStart) / 1_000
        figures.residentBytes = residentBytes() - residentBefore
        figures.kept = state.cursor.log.end - state.cursor.log.start
        figures.stages = state.cursor.graph.nodes.count
        figures.checkpoints = state.cursor.log.checkpointPositions.count
        // Where the heap goes: the history (entries, texts, the graphs it keeps), the
        // lanes, the live graph, the table, the tree, the warnings, and the rest, each
        // measured by what releasing it gives back.
        var log: History? = state.cursor.log
        var lanes: [NodeID: Lane]? = state.timeline.lanes
        var live: Graph? = state.cursor.graph
        var table: AppState.Table? = state.table
        var tree: AppState.Tree? = state.tree
        var warnings: AppState.Warnings? = state.warnings
        func released(_ release: () -> Void) -> Int {
            let before = heapInUse()
            release()
            return before - heapInUse()
        }
        figures.restBytes = released { state = AppState(targetName: "released") }
        figures.lanesBytes = released { lanes = nil }
        figures.tableBytes = released { table = nil }
        figures.treeBytes = released { tree = nil }
        figures.warningsBytes = released { warnings = nil }
        figures.liveGraphBytes = released { live = nil }
        figures.historyEntriesBytes = Int(log!.bytesPerEvent * Double(figures.kept))
        figures.historyBytes = released { log = nil }
        withExtendedLifetime((log, lanes, live, table, tree, warnings)) {}
        return figures
    }

    /// The inspector's state after `target` events of the busy program's stream, a tick
    /// after every batch; and the events it was given.
    static func stream(events target: Int) -> (AppState, Int) {
        var events = 0
        var state = AppState(targetName: "memory-bench", pid: 1)
        _ = reduce(&state, .attached(process: "memory-bench", pid: 1))
        _ = reduce(&state, ScreenView.resized(width: 120, height: 40))
        var maker = ExportBench.Maker()
        maker.step = 100_000   // 10,000 events a second
        for _ in 0..<100 { maker.longLived() }
        while events < target {
            for i in 0..<750 { maker.value(on: i % 100) }
            for _ in 0..<10 { maker.shortLived() }
            for _ in 0..<5 { maker.cancelledBySink() }
            let batch = maker.take()
            events += batch.events.count
            _ = reduce(&state, .batch(batch))
            _ = reduce(&state, .tick(nanos: maker.now))
        }
        return (state, events)
    }

    /// malloc's bytes in use (small blocks and mapped ones).
    static func heapInUse() -> Int { Int(pipescope_heap_in_use()) }

    /// The process's resident memory, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
