import Benchmark
import Foundation
import PipescopeProbe
import PipescopeRecording
import PipescopeWire

// The flight recorder's cost on the value path: the chain with the probe served as
// Pipescope.start() serves it (its event loop flushing every 25 ms), without and with
// PIPESCOPE_FLIGHT, beside the empty-hook floor of the same run ("value/chain 2").
// The recorder works on the server's thread and the recording's writer thread, never on
// the program's: what it may cost the program is the CPU those threads take from it.

/// A probe served on a socket in a fresh directory, with or without a flight recorder.
final class ServedProbe: @unchecked Sendable {
    private var server: ProbeServer?
    private var directory: String?

    func start(flight: Bool) {
        let directory = "/tmp/pipescope-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(directory, 0o700)
        self.directory = directory
        let probe = Probe()
        do {
            server = try ProbeServer(probe: probe, path: directory + "/bench.sock",
                                     flight: flight ? FlightRecorder.Options(directory: directory + "/flight") : nil)
        } catch {
            fatalError("cannot serve the benchmark's probe: \(error)")
        }
        probe.enable()
        bench.probe = probe
    }

    func stop(_ name: String) {
        if let directory {
            let kept = FlightSegments.bytes(in: directory + "/flight")
            if kept > 0 { print("\(name): the flight recorder kept \(kept) bytes") }
        }
        bench.stop(name)
        server?.close()
        server = nil
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        directory = nil
    }
}

nonisolated(unsafe) let served = ServedProbe()

func flightBenchmarks() {
    for (name, flight) in [("7 pipescope served", false), ("8 pipescope served, flight recorder on", true)] {
        Benchmark("value/chain \(name)") { benchmark in
            bench.send(benchmark.scaledIterations, shape: .chain)
        } setup: {
            served.start(flight: flight)
            bench.buildPipeline(.chain)
        } teardown: {
            served.stop("chain \(name)")
        }
    }
}
