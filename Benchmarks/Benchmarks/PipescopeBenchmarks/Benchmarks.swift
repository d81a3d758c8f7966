import Benchmark
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
import Pipescope
import PipescopeProbe
import PipescopeGraph
import PipescopeModel
import PipescopeViews
import PipescopeWire
import TerminalKit

// Pipescope's cost, measured side by side in one run so the ratios hold on a noisy
// machine. See Benchmarks/README.md for the figures and how to read them.

/// An `_Introspection` handler that does nothing: OpenCombine's own cost of the hook,
/// the floor under anything Pipescope can do.
final class EmptyHandler: _Introspection, @unchecked Sendable {}

/// The pipelines a value is measured through.
enum Shape: String, CaseIterable {
    /// `subject → map → filter → sink` of `Int`s: three stages, every value passes all
    /// of them. Ints are scalars: their text is copied on every value.
    case chain
    /// The same chain carrying a struct with a `description` of its own: by default
    /// described once per stage per flush window, on the delivering thread.
    case chainOfStructs = "chain of structs"
    /// `subject → flatMap { [v, v+1, v+2].publisher } → sink`: each value subscribes an
    /// inner publisher that delivers three values and finishes.
    case flatMap
    /// `subject → receive(on: queue) → sink`: each value hops to a serial queue; the
    /// iteration ends when the last value has arrived.
    case receiveOn = "receive(on:)"
}

/// A value of the kind view models pass around: a few fields and a description.
struct Reading: CustomStringConvertible, Sendable {
    var sensor: String
    var value: Double
    var sequence: Int
    var description: String { "Reading(\(sensor): \(value) #\(sequence))" }
}

/// The state one benchmark builds in setup and uses in its loop.
final class Bench: @unchecked Sendable {
    var subject = PassthroughSubject<Int, Never>()
    var readings = PassthroughSubject<Reading, Never>()
    var cancellable: AnyCancellable?
    var hook: EmptyHandler?
    var probe: Probe?
    var flusher: Thread?
    var running = false
    let queue = DispatchQueue(label: "bench.receiver")
    /// Values that reached the sink (written on `queue` for receive(on:)).
    let arrived = ManagedCounter()

    func buildPipeline(_ shape: Shape = .chain) {
        subject = PassthroughSubject<Int, Never>()
        arrived.reset()
        let arrived = self.arrived
        switch shape {
        case .chain:
            cancellable = subject.map { $0 &+ 1 }.filter { $0 != 0 }.sink { _ in }
        case .chainOfStructs:
            readings = PassthroughSubject<Reading, Never>()
            cancellable = readings.map { var r = $0; r.sequence &+= 1; return r }.filter { $0.sequence != 0 }.sink { _ in }
        case .flatMap:
            cancellable = subject.flatMap { v in [v, v &+ 1, v &+ 2].publisher }.sink { _ in }
        case .receiveOn:
            cancellable = subject.receive(on: queue.ocombine).sink { _ in arrived.add() }
        }
    }

    /// Sends `count` values; for receive(on:), waits until they all arrived.
    func send(_ values: some Sequence<Int>, shape: Shape) {
        var sent = 0
        if shape == .chainOfStructs {
            for value in values {
                readings.send(Reading(sensor: "kitchen", value: 21.5, sequence: value))
            }
            return
        }
        for value in values {
            subject.send(value)
            sent += 1
        }
        if shape == .receiveOn {
            while arrived.value < sent { sched_yield() }
            arrived.reset()
        }
    }

    /// A probe flushed every 25 ms on its own thread, as Pipescope.start() runs it;
    /// `locations`: it records where pipelines are made (the default).
    func startProbe(locations: Bool = true) {
        let probe = Probe(locations: locations)
        probe.enable()
        self.probe = probe
        running = true
        let thread = Thread { [self] in
            while running {
                probe.flush()
                usleep(25_000)
            }
        }
        thread.start()
        flusher = thread
    }

    func stop(_ name: String) {
        cancellable = nil
        hook?.disable()
        hook = nil
        running = false
        usleep(30_000)
        if let probe {
            probe.flush()
            print("\(name): events dropped by the probe's buffer: \(probe.graph.dropped)")
            probe.disable()
        }
        probe = nil
    }
}

nonisolated(unsafe) let bench = Bench()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    // MARK: - Per value, through each shape, in five configurations

    func perValue(_ shape: Shape, _ name: String, setup: @escaping @Sendable () -> Void) {
        Benchmark("value/\(shape.rawValue) \(name)") { benchmark in
            bench.send(benchmark.scaledIterations, shape: shape)
        } setup: {
            setup()
        } teardown: {
            bench.stop("\(shape.rawValue) \(name)")
        }
    }

    for shape in Shape.allCases {
        perValue(shape, "1 no hook") { bench.buildPipeline(shape) }
        perValue(shape, "2 empty hook (floor)") {
            bench.hook = EmptyHandler()
            bench.hook?.enable()
            bench.buildPipeline(shape)
        }
        perValue(shape, "3 pipescope default") {
            bench.startProbe()
            bench.buildPipeline(shape)
        }
        perValue(shape, "4 pipescope no value text") {
            bench.startProbe()
            bench.probe?.captureNoValues()
            bench.buildPipeline(shape)
        }
        perValue(shape, "5 pipescope every value described") {
            bench.startProbe()
            bench.buildPipeline(shape)
            bench.probe?.flush()
            bench.probe?.captureEveryValue(of: Set(bench.probe?.graph.nodes.keys.map { $0 } ?? []))
        }
    }

    // MARK: - Locations: subscribing with and without them, and ways to capture a stack

    locationBenchmarks()

    // MARK: - The flight recorder: the chain served, without and with PIPESCOPE_FLIGHT

    flightBenchmarks()

    // MARK: - The metrics (#46): the value path and subscribing, without and with them

    metricsBenchmarks()
    flushCostBenchmarks()

    // MARK: - Wire: pack, frame, decode and unpack one batch of 10,000 events

    let batch = WireBench.batch(events: 10_000, stages: 100)
    Benchmark("wire/encode+decode 10k events", configuration: .init(scalingFactor: .one)) { benchmark in
        // One stream, as on a socket: names travel in the first batch only.
        var writer = WireStreamWriter()
        var reader = WireStreamReader()
        for _ in benchmark.scaledIterations {
            let frame = writer.message(batch).framed()
            let decoded = try reader.batch(ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize)).packed)
            blackHole(decoded.events.count)
        }
    }
    Benchmark("wire/encode only 10k events", configuration: .init(scalingFactor: .one)) { benchmark in
        var writer = WireStreamWriter()
        for _ in benchmark.scaledIterations { blackHole(writer.message(batch).framed().count) }
    }
    Benchmark("wire/decode only 10k events", configuration: .init(scalingFactor: .one)) { benchmark in
        var writer = WireStreamWriter()
        let frame = writer.message(batch).framed()
        for _ in benchmark.scaledIterations {
            var reader = WireStreamReader()
            let decoded = try reader.batch(ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize)).packed)
            blackHole(decoded.events.count)
        }
    }
    // The same batch with each value's words instead of its number: what version 3 sent
    // for every Int value, and what a described value still costs.
    let wordsBatch = WireBench.batch(events: 10_000, stages: 100, asWords: true)
    Benchmark("wire/encode+decode 10k events, values as words", configuration: .init(scalingFactor: .one)) { benchmark in
        var writer = WireStreamWriter()
        var reader = WireStreamReader()
        for _ in benchmark.scaledIterations {
            let frame = writer.message(wordsBatch).framed()
            let decoded = try reader.batch(ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize)).packed)
            blackHole(decoded.events.count)
        }
    }
    for (name, measured) in [("", batch), (", values as words", wordsBatch)] {
        var writer = WireStreamWriter()
        let first = writer.message(measured).framed().count
        let next = writer.message(measured).framed().count
        print("wire: a 10,000-event batch\(name) is \(first) bytes with its names, \(next) after; "
            + String(format: "%.2f", Double(next) / 10_000) + " bytes per event")
    }

    // MARK: - Loopback: tap to decoded inspector events through the socket

    Benchmark("wire/loopback tap to inspector, 75k events",
              configuration: .init(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(5))) { benchmark in
        for _ in benchmark.scaledIterations { Loopback.iteration() }
    } setup: {
        Loopback.setUp()
    } teardown: {
        Loopback.tearDown()
    }

    // MARK: - Model: fold a batch into the graph

    Benchmark("model/apply 10k events", configuration: .init(scalingFactor: .one)) { benchmark in
        for _ in benchmark.scaledIterations {
            var graph = WireBench.graph
            graph.fold(batch)
            blackHole(graph.sequence)
        }
    }

    // MARK: - Model: one batch into graphs of growing size, ended pipelines hidden

    // The rows the tree shows are derived once per batch; with ended pipelines hidden,
    // that must stay linear in the stages (it once walked to every row's root).
    for stages in [2_500, 10_000, 40_000] {
        Benchmark("model/apply 100 events, \(stages) stages, ended hidden",
                  configuration: .init(scalingFactor: .one)) { benchmark in
            var state = WireBench.endedHiddenState(stages: stages)
            var sequence = state.cursor.liveGraph.sequence
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                _ = reduce(&state, .batch(WireBench.smallBatch(stages: stages, sequence: sequence)))
                sequence += 100
            }
            benchmark.stopMeasurement()
            blackHole(state.tree.rows.count)
        }
    }

    // MARK: - Model: move the history cursor anywhere in 1,000,000 events

    let history = Fixture {
        let longHistory = WireBench.history(events: 1_000_000, stages: 100)
        print("model: the 1M-event history holds " + String(format: "%.1f", longHistory.bytesPerEvent)
            + " bytes per event (entries and texts), plus a checkpoint graph every \(History.checkpointStride) events, or \(History.eventsPerStage) a stage")
        return longHistory
    }
    Benchmark("model/cursor jump in 1M events", configuration: .init(scalingFactor: .one)) { benchmark in
        let longHistory = history.value
        var position = 0
        for _ in benchmark.scaledIterations {
            // A different, far-apart position each time (a stride coprime with the length).
            position = (position + 386_731) % longHistory.end
            blackHole(longHistory.graph(at: position).sequence)
        }
    } setup: {
        _ = history.value
    }

    // MARK: - Rendering: 10,000 stages at 200x60

    let big = Fixture {
        let state = WireBench.bigState()
        // What reaches the terminal when one value changes: the diff's runs, each a cursor
        // move and attributes (about 12 bytes with curses) plus its text.
        var before = ScreenBuffer(width: 200, height: 60)
        ScreenView.render(state, theme: .plainUnicode, into: &before)
        var next = state
        let one = EventBatch(events: [StageEvent(.value, node: 1, time: state.cursor.liveGraph[1]?.createdNanos ?? 0,
                                                 text: "changed")],
                             trailer: BatchTrailer(sequence: state.cursor.liveGraph.sequence + 1))
        _ = reduce(&next, .batch(one))
        var after = ScreenBuffer(width: 200, height: 60)
        ScreenView.render(next, theme: .plainUnicode, into: &after)
        let runs = after.diff(from: before)
        let bytes = runs.reduce(0) { $0 + 12 + $1.text.utf8.count }
        let full = ScreenBuffer(width: 200, height: 60).diff(from: nil).count
        print("render: one value changed -> \(runs.count) runs, about \(bytes) bytes to the terminal "
            + "(a full 200x60 redraw is \(full) runs, over 12,000 bytes)")
        return state
    }
    Benchmark("render/frame 200x60, 10k stages", configuration: .init(scalingFactor: .one)) { benchmark in
        let state = big.value
        var previous = ScreenBuffer(width: 200, height: 60)
        for _ in benchmark.scaledIterations {
            var buffer = ScreenBuffer(width: 200, height: 60)
            ScreenView.render(state, theme: .plainUnicode, into: &buffer)
            blackHole(buffer.diff(from: previous).count)
            previous = buffer
        }
    } setup: {
        _ = big.value
    }

    // MARK: - Export: a 1,000,000-event recording to a Perfetto trace

    exportBenchmarks()

    // MARK: - The pipelines table: 10,000 pipelines, sorted and drawn at 120x40

    tableBenchmarks()
    inspectorMemoryBenchmarks()

    // MARK: - The timeline screen: 10,000 stages, 1,000,000 events at 200x60

    timelineBenchmarks()
}

/// Fixed inputs for the wire, model and render benchmarks.
enum WireBench {
    /// A history of `events` value events over `stages` stages, all kept.
    static func history(events: Int, stages: Int) -> History {
        var history = History()
        history.limit = events
        var graph = Graph()
        let chunk = 10_000
        for start in stride(from: 0, to: events, by: chunk) {
            var batch = start == 0 ? Self.batch(events: chunk - stages, stages: stages) : Self.batch(events: chunk, stages: stages)
            if start > 0 {
                batch.nodes = []
                batch.events.removeFirst(stages)
            }
            history.append(batch, folding: &graph)
        }
        return history
    }

    /// `stages` stages in chains of 10, then `events` value events spread over them, each
    /// with its value, as a probe sends `Int` values (scalars: every value, as its number
    /// since protocol version 4). `asWords`: each value's words instead, as version 3's
    /// probes sent them (and as a described value still travels).
    static func batch(events: Int, stages: Int, asWords: Bool = false) -> EventBatch {
        var batch = EventBatch()
        for id in 1...UInt64(stages) {
            batch.append(NodeInfo(id: id, parent: id % 10 == 1 ? nil : id - 1, operatorName: "Map",
                                  publisherType: "Map<PassthroughSubject<Int, Never>, Int>", subscriber: "Sink",
                                  thread: "", createdNanos: 0))
        }
        for i in 0..<events {
            batch.events.append(StageEvent(.value, node: UInt64(i % stages) + 1,
                                           time: 1_700_000_000_000_000_000 + Int64(i) * 1000,
                                           value: asWords ? .text(String(i)) : .int(Int64(i))))
        }
        batch.trailer.sequence = UInt64(batch.events.count)
        return batch
    }

    static let graph = Graph()

    /// `stages` stages in pipelines of 10, every other pipeline finished, with ended
    /// pipelines hidden (`x`): the state a batch is applied to in the scaling benchmark.
    static func endedHiddenState(stages: Int) -> AppState {
        var setup = batch(events: 0, stages: stages)
        for id in 1...UInt64(stages) where (id - 1) / 10 % 2 == 1 {
            setup.events.append(StageEvent(.finished, node: id, time: 1_700_000_000_000_000_000))
        }
        setup.trailer.sequence = UInt64(setup.events.count)
        var state = AppState(targetName: "bench", pid: 1)
        _ = reduce(&state, .attached(process: "bench", pid: 1))
        _ = reduce(&state, .action(.toggleTable))  // the tree, as measured before the table came first
        _ = reduce(&state, .batch(setup))
        _ = reduce(&state, ScreenView.resized(width: 200, height: 60))
        _ = reduce(&state, .action(.toggleEnded))
        return state
    }

    /// 100 value events on the live pipelines' stages.
    static func smallBatch(stages: Int, sequence: UInt64) -> EventBatch {
        var batch = EventBatch()
        for i in 0..<100 {
            batch.events.append(StageEvent(.value, node: UInt64(i * 20 % stages) + 1,
                                           time: 1_700_000_000_000_000_000 + Int64(i), text: String(i)))
        }
        batch.trailer.sequence = sequence + 100
        return batch
    }

    /// 10,000 stages (1,000 pipelines of 10), all shown in the tree, the first selected.
    static func bigState() -> AppState {
        var state = AppState(targetName: "bench", pid: 1)
        _ = reduce(&state, .attached(process: "bench", pid: 1))
        _ = reduce(&state, .action(.toggleTable))  // the tree, as measured before the table came first
        _ = reduce(&state, .batch(batch(events: 100_000, stages: 10_000)))
        _ = reduce(&state, ScreenView.resized(width: 200, height: 60))
        return state
    }
}

/// A counter two threads share (the sender reads, the receiving queue adds).
final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    func add() { lock.lock(); count += 1; lock.unlock() }
    func reset() { lock.lock(); count = 0; lock.unlock() }
}
