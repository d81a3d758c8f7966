// A small program that uses Pipescope exactly as a user's program would: link the
// library, call Pipescope.start() first, then build pipelines. The end-to-end tests
// run it as a separate process and attach to it.
//
//   swift run pipescope-example            # serves until killed
//   pipescope attach <pid>                 # in another terminal
import Dispatch
import Foundation
@preconcurrency import OpenCombine
import Pipescope

guard let socket = Pipescope.start() else { exit(1) }
FileHandle.standardOutput.write(Data("pipescope-example pid \(getpid()) socket \(socket)\n".utf8))

/// Built inside a nonisolated function so that OpenCombine may call the closures from
/// the background queue (a closure written at top level would be main-actor isolated).
func buildPipelines() -> (PassthroughSubject<Int, Never>, [AnyCancellable]) {
    let numbers = PassthroughSubject<Int, Never>()
    var keep: [AnyCancellable] = []
    if ProcessInfo.processInfo.environment["EXAMPLE_SHAPE"] == "flatMap" {
        // EXAMPLE_SHAPE=flatMap: each value subscribes an inner publisher of three values
        // (the flatMap benchmark's shape), to load the probe with new stages.
        keep.append(numbers.flatMap { v in [v, v &+ 1, v &+ 2].publisher }.sink { _ in })
    } else {
        keep.append(numbers.map { $0 * 2 }.filter { $0 % 4 == 0 }.sink { _ in })
    }
    keep.append(["a", "b", "c"].publisher.sink { _ in })
    if ProcessInfo.processInfo.environment["EXAMPLE_SHAPE"] == "unretained" {
        // EXAMPLE_SHAPE=unretained: a mistake for `pipescope check` to find (CheckCommandTests
        // looks for this line by its comment).
        _ = numbers.sink { _ in }  // the AnyCancellable is not kept
    }
    if ProcessInfo.processInfo.environment["EXAMPLE_SHAPE"] == "held" {
        // EXAMPLE_SHAPE=held: a pipeline held on demand (MetricsShapes.swift).
        let held = AsksOnce()
        numbers.subscribe(held)
        keep.append(AnyCancellable { withExtendedLifetime(held) {} })
    }
    let cancelled = numbers.sink { _ in }
    cancelled.cancel()
    keep += idlePipelines()
    return (numbers, keep)
}

/// EXAMPLE_PIPELINES=N adds N more pipelines (`subject.map.filter.sink`, three stages each),
/// each on a subject nobody sends to: a program with many pipelines, most of them idle,
/// for measuring the inspector at 10,000 pipelines (`scripts/measure-key-latency.py --pipelines`).
func idlePipelines() -> [AnyCancellable] {
    let count = max(0, ProcessInfo.processInfo.environment["EXAMPLE_PIPELINES"].flatMap(Int.init) ?? 0)
    return (0..<count).map { _ in PassthroughSubject<Int, Never>().map { $0 + 1 }.filter { $0 > 0 }.sink { _ in } }
}

/// Sends 1, 2, 3, … every 50 ms; with EXAMPLE_SEND_LIMIT=N it stops after N values and
/// idles, so tests know the final state (with EXAMPLE_EXIT=1 it exits instead, as a
/// program that is done does). EXAMPLE_RATE=N sends N values a second instead
/// (in bursts every 10 ms), to load the inspector: each value is about 2.5 events.
func drive(_ numbers: PassthroughSubject<Int, Never>) -> DispatchSourceTimer {
    let queue = DispatchQueue(label: "example.driver")
    let timer = DispatchSource.makeTimerSource(queue: queue)
    let environment = ProcessInfo.processInfo.environment
    let limit = environment["EXAMPLE_SEND_LIMIT"].flatMap(Int.init) ?? .max
    let rate = environment["EXAMPLE_RATE"].flatMap(Int.init)
    let exitWhenDone = environment["EXAMPLE_EXIT"] == "1"
    // EXAMPLE_SHAPE=pileup: one more pipeline at one place at every tick (MetricsShapes.swift).
    let pileUp = environment["EXAMPLE_SHAPE"] == "pileup" ? PileUp() : nil
    nonisolated(unsafe) var n = 0
    timer.schedule(deadline: .now(), repeating: .milliseconds(rate == nil ? 50 : 10))
    let perTick = max(1, (rate ?? 20) / 100)
    timer.setEventHandler {
        pileUp?.add()
        for _ in 0..<(rate == nil ? 1 : perTick) {
            guard n < limit else {
                if exitWhenDone { exit(0) }
                return
            }
            n += 1
            numbers.send(n)
        }
    }
    timer.resume()
    return timer
}

let (numbers, cancellables) = buildPipelines()
let timer = drive(numbers)
withExtendedLifetime((cancellables, timer)) {
    dispatchMain()
}
