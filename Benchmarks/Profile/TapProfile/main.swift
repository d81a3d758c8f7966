import Foundation
@preconcurrency import OpenCombine
import Pipescope
import PipescopeProbe

// A quick, repeatable look at the tap's cost on the value path, for profiling with
// `perf record` and for trying changes in seconds rather than a full benchmark run:
//
//   swift build -c release --product TapProfile
//   .build/release/TapProfile            # rounds of no hook / floor / Pipescope, ns per value
//   perf record -g .build/release/TapProfile pipescope 10
//   .build/release/TapProfile subscribe          # subscribe-and-cancel of the chain, ns each
//   perf record -g .build/release/TapProfile subscribe pipescope 10
//   .build/release/TapProfile flatMap            # a value through flatMap { 3 values }, ns each
//   .build/release/TapProfile subscribe-samples pipescope 3   # p0 and p50 of single subscribe-and-cancels
//                                    # (configs: empty, pipescope, pipescope-noflush: no flush thread)
//   valgrind --tool=callgrind --separate-threads=yes .build/release/TapProfile subscribe pipescope n=20000
//   perf stat -e instructions:u .build/release/TapProfile wire n=2000   # the wire benchmark's loop
//
// The figures that go in the README come from `swift package benchmark`, not from here.

final class EmptyHandler: _Introspection, @unchecked Sendable {}

/// ns per value through `subject → map → filter → sink` of Ints, for `seconds` (or,
/// with `values`, exactly that many values, for instruction counts under callgrind).
func measure(_ config: String, seconds: Double, values: Int? = nil) -> Double {
    var hook: EmptyHandler?
    var probe: Probe?
    var flusher: Thread?
    let running = ManagedAtomicFlag()
    switch config {
    case "empty":
        hook = EmptyHandler()
        hook?.enable()
    case "pipescope":
        let p = Probe()
        p.enable()
        probe = p
        running.set(true)
        let thread = Thread {
            while running.value {
                p.flush()
                usleep(25_000)
            }
        }
        thread.start()
        flusher = thread
    case "pipescope-noflush":
        // No flush thread: the program's own cost alone (the buffer holds 4M events).
        let p = Probe(bufferCapacity: 1 << 22)
        p.enable()
        probe = p
    default:
        break
    }
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.map { $0 &+ 1 }.filter { $0 != 0 }.sink { _ in }
    let start = DispatchTime.now().uptimeNanoseconds
    var sent = 0
    while values.map({ sent < $0 }) ?? (Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9) {
        for i in 0..<1_000 { subject.send(i) }
        sent += 1_000
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    cancellable.cancel()
    hook?.disable()
    running.set(false)
    _ = flusher
    if let probe {
        if config == "pipescope" {
            usleep(30_000)
            probe.flush()
        }
        probe.disable()
    }
    return elapsed / Double(sent)
}

final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set(_ v: Bool) { lock.withLock { flag = v } }
}

/// The last "pipescope" run's events dropped by the probe, of all the tap saw.
nonisolated(unsafe) var lastDrops: (dropped: UInt64, events: UInt64)?

/// Starts the hook `config` names; returns what stops it.
func startHook(_ config: String) -> () -> Void {
    switch config {
    case "empty":
        let hook = EmptyHandler()
        hook.enable()
        return { hook.disable() }
    case "pipescope":
        let p = Probe()
        p.enable()
        let running = ManagedAtomicFlag()
        running.set(true)
        let thread = Thread {
            while running.value {
                p.flush()
                usleep(25_000)
            }
        }
        thread.start()
        return {
            running.set(false)
            usleep(30_000)
            p.flush()
            p.disable()
            let graph = p.graph
            lastDrops = (graph.dropped, graph.sequence + graph.dropped)
        }
    case "pipescope-noflush":
        // No flush thread: the program's thread alone (the buffer holds 4M events).
        let p = Probe(bufferCapacity: 1 << 22)
        p.enable()
        return { p.disable() }
    default:
        return {}
    }
}

/// `subject → map → filter → sink` subscribed and cancelled, as the subscribe benchmark does.
@inline(never)
func subscribeAndCancel(_ subject: PassthroughSubject<Int, Never>) {
    let c = subject.map { $0 &+ 1 }.filter { $0 != 0 }.sink { _ in }
    c.cancel()
}

/// ns per iteration of `workload` ("subscribe": one subscribe-and-cancel; "flatMap": one
/// value through `subject → flatMap { [v, v+1, v+2].publisher } → sink`) under `config`.
func measureWorkload(_ workload: String, _ config: String, seconds: Double, iterations: Int? = nil) -> Double {
    let stop = startHook(config)
    defer { stop() }
    let subject = PassthroughSubject<Int, Never>()
    var cancellable: AnyCancellable?
    if workload == "flatMap" {
        cancellable = subject.flatMap { v in [v, v &+ 1, v &+ 2].publisher }.sink { _ in }
    }
    let start = DispatchTime.now().uptimeNanoseconds
    var done = 0
    while iterations.map({ done < $0 }) ?? (Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9) {
        for i in 0..<100 {
            if workload == "flatMap" { subject.send(i) } else { subscribeAndCancel(subject) }
        }
        done += 100
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    cancellable?.cancel()
    return elapsed / Double(done)
}

/// Each subscribe-and-cancel timed on its own for `seconds`, as the benchmark's samples
/// are: their minimum and median in ns (the benchmark's p0 and p50 are what the targets
/// are about, and a minimum is the figure the machine's other load disturbs least).
func sampleSubscribes(_ config: String, seconds: Double) -> (p0: UInt64, p50: UInt64, count: Int) {
    let stop = startHook(config)
    defer { stop() }
    let subject = PassthroughSubject<Int, Never>()
    var samples: [UInt64] = []
    samples.reserveCapacity(1 << 20)
    let start = DispatchTime.now().uptimeNanoseconds
    while Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9 {
        let t0 = DispatchTime.now().uptimeNanoseconds
        subscribeAndCancel(subject)
        samples.append(DispatchTime.now().uptimeNanoseconds - t0)
    }
    samples.sort()
    return (samples[0], samples[samples.count / 2], samples.count)
}

func main() {
    let args = CommandLine.arguments
    if args.count >= 2, args[1] == "wire" {
        wireProfile(iterations: args.count >= 3 && args[2].hasPrefix("n=") ? Int(args[2].dropFirst(2)) ?? 2_000 : 2_000)
        return
    }
    if args.count >= 3, args[1] == "subscribe-samples" {
        // subscribe-samples CONFIG [SECONDS]: p0 and p50 of single subscribe-and-cancels.
        let seconds = args.count >= 4 ? Double(args[3]) ?? 3 : 3
        let (p0, p50, count) = sampleSubscribes(args[2], seconds: seconds)
        print("subscribe-samples \(args[2]): p0 \(p0) ns, p50 \(p50) ns, \(count) samples")
        return
    }
    if args.count >= 2, ["subscribe", "flatMap"].contains(args[1]) {
        let workload = args[1]
        if args.count >= 3 {
            // A number of seconds, or `n=COUNT` iterations (for instruction counts under callgrind).
            let count = args.count >= 4 && args[3].hasPrefix("n=") ? Int(args[3].dropFirst(2)) : nil
            let seconds = args.count >= 4 ? Double(args[3]) ?? 5 : 5
            let ns = measureWorkload(workload, args[2], seconds: seconds, iterations: count)
            print("\(workload) \(args[2]): \(Int(ns)) ns" + (count.map { ", \($0) iterations" } ?? "")
                + (lastDrops.map { ", dropped \($0.dropped) of \($0.events) events" } ?? ""))
            return
        }
        for round in 1...3 {
            let none = measureWorkload(workload, "none", seconds: 1)
            let floor = measureWorkload(workload, "empty", seconds: 1)
            let tap = measureWorkload(workload, "pipescope", seconds: 1)
            print("\(workload) round \(round): no hook \(Int(none)) ns, floor \(Int(floor)) ns, pipescope \(Int(tap)) ns = "
                + String(format: "%.2f", tap / floor) + "× the floor")
        }
        return
    }
    if args.count >= 2 {
        if args.count >= 3, args[2].hasPrefix("values=") {
            let count = Int(args[2].dropFirst(7)) ?? 100_000
            print("\(args[1]): \(Int(measure(args[1], seconds: 0, values: count))) ns/value, \(count) values")
            return
        }
        let seconds = args.count >= 3 ? Double(args[2]) ?? 5 : 5
        print("\(args[1]): \(Int(measure(args[1], seconds: seconds))) ns/value")
        return
    }
    for round in 1...5 {
        let none = measure("none", seconds: 1)
        let floor = measure("empty", seconds: 1)
        let tap = measure("pipescope", seconds: 1)
        let alone = measure("pipescope-noflush", seconds: 0.5)
        print("round \(round): no hook \(Int(none)) ns, floor \(Int(floor)) ns, pipescope \(Int(tap)) ns = "
            + String(format: "%.2f", tap / floor) + "× the floor; without its flush thread "
            + String(format: "%.2f", alone / floor) + "×")
    }
}

main()
