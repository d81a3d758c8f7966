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
    keep.append(numbers.map { $0 * 2 }.filter { $0 % 4 == 0 }.sink { _ in })
    keep.append(["a", "b", "c"].publisher.sink { _ in })
    let cancelled = numbers.sink { _ in }
    cancelled.cancel()
    keep += idlePipelines()
    return (numbers, keep)
}

/// EXAMPLE_PIPELINES=N adds N more pipelines (`subject.map.filter.sink`, three stages each),
/// each on a subject nobody sends to: a program with many pipelines, most of them idle,
/// for measuring the inspector at 10,000 pipelines (`scripts/measure-key-latency.py --pipelines`).
/// With EXAMPLE_PIPELINES_DELAY=S they are made S seconds after start, so an inspector
/// attached before gets them as events (a snapshot of 30,000 stages is over the wire's
/// 4 MiB frame limit, and an inspector attaching after is refused).
func idlePipelines() -> [AnyCancellable] {
    let environment = ProcessInfo.processInfo.environment
    let count = max(0, environment["EXAMPLE_PIPELINES"].flatMap(Int.init) ?? 0)
    @Sendable func make() -> [AnyCancellable] {
        (0..<count).map { _ in PassthroughSubject<Int, Never>().map { $0 + 1 }.filter { $0 > 0 }.sink { _ in } }
    }
    guard let delay = environment["EXAMPLE_PIPELINES_DELAY"].flatMap(Double.init), delay > 0 else { return make() }
    let later = PassthroughSubject<Int, Never>()
    let holder = later.sink { _ in }
    DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
        madeLater = make()
    }
    return [holder]
}

/// The pipelines made after a delay, kept alive for the program's life (written once,
/// on the queue that makes them, and never read).
nonisolated(unsafe) var madeLater: [AnyCancellable] = []

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
    nonisolated(unsafe) var n = 0
    timer.schedule(deadline: .now(), repeating: .milliseconds(rate == nil ? 50 : 10))
    let perTick = max(1, (rate ?? 20) / 100)
    timer.setEventHandler {
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
