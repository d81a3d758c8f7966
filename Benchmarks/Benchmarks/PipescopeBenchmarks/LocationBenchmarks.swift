import Benchmark
import CPipescopeLocations
import Foundation
@preconcurrency import OpenCombine
import Pipescope
import PipescopeProbe
import Runtime

// What recording where pipelines were made costs: subscribing and cancelling a
// three-stage pipeline with and without it, and the ways of capturing a call stack that
// were measured to choose one. See Performance.md in Sources/Pipescope/Pipescope.docc.

/// `subject → map → filter → sink`, subscribed and cancelled: one iteration.
@inline(never)
func subscribeAndCancel(_ subject: PassthroughSubject<Int, Never>) {
    let c = subject.map { $0 &+ 1 }.filter { $0 != 0 }.sink { _ in }
    c.cancel()
}

/// Runs `body` `depth` frames further down the stack: a root subscription is a dozen
/// frames into OpenCombine and Pipescope, below the program's own.
@inline(never)
func atDepth(_ depth: Int, _ body: () -> Int) -> Int {
    depth == 0 ? body() : atDepth(depth - 1, body) &+ 1
}

enum StackCapture {
    static let frames: Int32 = 40
    /// glibc's backtrace(3), through dlsym (Swift's Glibc module does not import execinfo.h).
    typealias Backtrace = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32
    static let glibc: Backtrace = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "backtrace")!,
                                                to: Backtrace.self)
    nonisolated(unsafe) static var images: ImageMap?
    nonisolated(unsafe) static var low: UInt = 0
    nonisolated(unsafe) static var high: UInt = 0

    static func framePointers() -> Int {
        withUnsafeTemporaryAllocation(of: UInt.self, capacity: Int(frames)) { buffer in
            Int(pipescope_return_addresses(buffer.baseAddress, frames, low, high))
        }
    }

    static func backtrace() -> Int {
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: Int(frames)) { buffer in
            Int(glibc(buffer.baseAddress, frames))
        }
    }

    static func runtime() -> Int {
        let trace = try? Runtime.Backtrace.capture(algorithm: .fast, limit: Int(frames), offset: 0, top: 0, images: images)
        return trace == nil ? 0 : 1
    }
}

/// What the first pipelines cost: the flush that sends a new pipeline (which never waits
/// for symbols), and how long its location takes to follow, cold (the symbol thread
/// reads this binary's symbols and indexes its line tables, from `enable()` on), for a
/// new call site, and for a known one (in the first flush). Printed once, before the runs.
func measureFirstSymbolization() {
    let probe = Probe()
    probe.enable()
    defer { probe.disable() }
    let subject = PassthroughSubject<Int, Never>()
    func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    func ms(_ nanos: UInt64) -> String { String(format: "%.2f", Double(nanos) / 1e6) }
    /// The first flush after `make` (its duration), and the time until the new root has
    /// its location, flushing every 0.2 ms as the server would (it does every 25 ms).
    func measure(_ make: () -> AnyCancellable) -> (flush: UInt64, located: UInt64, cancellable: AnyCancellable) {
        let known = Set(probe.graph.roots)
        let c = make()
        let start = now()
        probe.flush()
        let flushed = now() - start
        while true {
            let graph = probe.graph
            if graph.roots.contains(where: { !known.contains($0) && graph[$0]?.location != nil }) { break }
            if now() - start > 60_000_000_000 { break }
            usleep(200)
            probe.flush()
        }
        return (flushed, now() - start, c)
    }
    let cold = measure { subject.sink { _ in } }
    // The same line twice, from the same caller (a caller is part of the stack looked
    // up): a new call site, then a known one.
    func mapped() -> AnyCancellable { subject.map { $0 }.sink { _ in } }
    let twice = (0..<2).map { _ in measure(mapped) }
    let (newSite, known) = (twice[0], twice[1])
    var cancellables: [AnyCancellable] = []
    cancellables += [cold.cancellable, newSite.cancellable, known.cancellable]
    let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let binary = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let located = probe.graph.nodes.values.compactMap(\.location).first?.short ?? "none"
    print("locations: the flush that sends a new pipeline \(ms(cold.flush)) ms cold, \(ms(newSite.flush)) ms "
        + "for a new call site, \(ms(known.flush)) ms for a known one; the location follows after "
        + "\(ms(cold.located)) ms cold (this binary's symbols and line index, \(binary / 1_000_000) MB), "
        + "\(ms(newSite.located)) ms for a new call site, \(ms(known.located)) ms for a known one; e.g. \(located)")
    withExtendedLifetime(cancellables) {}
}

func locationBenchmarks() {
    measureFirstSymbolization()

    let subscribe = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one,
                                            maxDuration: .seconds(3))
    func subscribeBenchmark(_ name: String, setup: @escaping @Sendable () -> Void) {
        Benchmark("subscribe/3-stage pipeline \(name)", configuration: subscribe) { benchmark in
            let subject = bench.subject
            for _ in benchmark.scaledIterations { subscribeAndCancel(subject) }
        } setup: {
            bench.subject = PassthroughSubject<Int, Never>()
            setup()
        } teardown: {
            bench.stop("subscribe \(name)")
        }
    }
    subscribeBenchmark("1 no hook") {}
    subscribeBenchmark("2 empty hook (floor)") {
        bench.hook = EmptyHandler()
        bench.hook?.enable()
    }
    subscribeBenchmark("3 pipescope, locations off") { bench.startProbe(locations: false) }
    subscribeBenchmark("4 pipescope, locations on (default)") { bench.startProbe(locations: true) }

    // The value path with locations off, beside the default (on): values walk no stack.
    Benchmark("value/chain 6 pipescope locations off") { benchmark in
        bench.send(benchmark.scaledIterations, shape: .chain)
    } setup: {
        bench.startProbe(locations: false)
        bench.buildPipeline(.chain)
    } teardown: {
        bench.stop("chain locations off")
    }

    // Forty frames from 16 frames below the benchmark's own, as the tap asks for them.
    let capture = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo,
                                          maxDuration: .seconds(2))
    Benchmark("capture/frame-pointer walk (chosen)", configuration: capture) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(atDepth(16, StackCapture.framePointers)) }
    } setup: {
        var low: UInt = 0, high: UInt = 0
        _ = pipescope_thread_stack(&low, &high)
        (StackCapture.low, StackCapture.high) = (low, high)
        print("capture: the frame-pointer walk sees \(atDepth(16, StackCapture.framePointers)) frames")
    }
    Benchmark("capture/glibc backtrace()", configuration: capture) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(atDepth(16, StackCapture.backtrace)) }
    } setup: {
        // The first call loads libgcc's unwinder: not part of a capture.
        print("capture: backtrace() sees \(atDepth(16, StackCapture.backtrace)) frames")
    }
    Benchmark("capture/Swift Runtime Backtrace.capture, ImageMap captured before",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one,
                                   maxDuration: .seconds(2))) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(atDepth(16, StackCapture.runtime)) }
    } setup: {
        StackCapture.images = ImageMap.capture()
    }
}
