import Benchmark
import Foundation
@preconcurrency import OpenCombine
import Pipescope
import PipescopeClient
import PipescopeModel
import PipescopeWire

/// Tap to decoded client events through the real socket: a program sends values through
/// `subject → map → filter → sink` while an inspector connected over the Unix socket
/// decodes every batch. One iteration sends 25,000 values (100,000 value events) and
/// waits until the inspector has received all of them, or their drop count.
enum Loopback {
    nonisolated(unsafe) static var connection: ProbeConnection?
    nonisolated(unsafe) static var subject = PassthroughSubject<Int, Never>()
    nonisolated(unsafe) static var cancellable: AnyCancellable?
    nonisolated(unsafe) static var received = 0
    nonisolated(unsafe) static var dropped: UInt64 = 0
    nonisolated(unsafe) static var skipped = 0

    static let valuesPerIteration = 25_000
    static let eventsPerIteration = valuesPerIteration * 3  // three stages: subject, map, filter

    static func setUp() {
        setenv("PIPESCOPE_SOCKET", "/tmp/pipescope-bench-\(getpid()).sock", 1)
        guard Pipescope.start() != nil else { fatalError("could not serve the benchmark socket") }
        subject = PassthroughSubject<Int, Never>()
        cancellable = subject.map { $0 &+ 1 }.filter { $0 != 0 }.sink { _ in }
        connection = try? ProbeConnection.connect(path: "/tmp/pipescope-bench-\(getpid()).sock")
        _ = try? connection?.handshake()
        received = 0
        dropped = 0
    }

    static func iteration() {
        let target = received + eventsPerIteration
        for i in 0..<valuesPerIteration { subject.send(i) }
        while received + Int(dropped) < target {
            guard let message = connection?.next(timeout: 1) else { break }
            switch message {
            case .batch(let batch):
                received += batch.events.count
                dropped = batch.trailer.dropped
            case .snapshot(let snapshot):
                // Skipped as a slow inspector: resynchronised, the skipped events counted.
                skipped += Int(snapshot.skippedEvents)
                received += Int(snapshot.skippedEvents)
            default: break
            }
        }
    }

    static func tearDown() {
        print("loopback: \(received - skipped) events decoded by the inspector, \(skipped) skipped (inspector behind), "
            + "\(dropped) dropped by the probe")
        cancellable = nil
        connection?.close()
        connection = nil
        Pipescope.stop()
    }
}
