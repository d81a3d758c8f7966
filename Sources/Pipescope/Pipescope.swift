import Foundation
import PipescopeGraph
import PipescopeMetrics
import PipescopeProbe
import PipescopeRecording
import PipescopeTap
import PipescopeWire
import Prometheus
import Synchronization

/// How long ended pipelines stay visible; see ``Pipescope/start(retention:flightRecorder:)``.
public typealias Retention = PipescopeGraph.Retention

/// The flight recorder: the program's recent events, always, in rotating files under a
/// disk budget; see ``Pipescope/start(retention:flightRecorder:)`` and `FlightRecorder.Options`.
public typealias FlightRecorder = PipescopeRecording.FlightRecorder

/// Pipescope's entry point for programs.
///
/// Call ``start(retention:flightRecorder:)`` once, early, before the pipelines you want to see are built:
/// ```swift
/// import Pipescope
///
/// Pipescope.start()
/// let cancellable = subject.map { $0 * 2 }.sink { print($0) }
/// ```
/// Then run `pipescope attach <pid>` in a terminal.
public enum Pipescope {
    private static let running = LockedBox<ProbeServer?>(nil)

    /// Taps every subscription made from now on and serves the inspector socket.
    ///
    /// The socket is `$PIPESCOPE_SOCKET`, or `$XDG_RUNTIME_DIR/pipescope/<pid>.sock`, or
    /// `/tmp/pipescope-<uid>/<pid>.sock`. Calling it again does nothing. If the socket
    /// cannot be served, Pipescope says why on standard error and the program runs on
    /// untouched; it never throws or exits.
    ///
    /// With `PIPESCOPE_RECORD=FILE` in the environment the program also records its own
    /// session to FILE, for `pipescope replay FILE` later. The file is written on a thread
    /// of Pipescope's own; if it cannot be written (a full disk, an unwritable path),
    /// Pipescope says so on standard error and to the inspector, and the program runs on,
    /// served but unrecorded. On `exit` the recording gets its end mark.
    ///
    /// Ended pipelines stay visible for `retention` (default: 60 s, at most 500, and at
    /// most 500 ended inner publishers under any one stage; or `PIPESCOPE_RETAIN_SECONDS`,
    /// `PIPESCOPE_RETAIN_PIPELINES` and `PIPESCOPE_RETAIN_INNER`), then are pruned.
    ///
    /// With `flightRecorder` (by default from `PIPESCOPE_FLIGHT=DIR`,
    /// `PIPESCOPE_FLIGHT_BUDGET` and `PIPESCOPE_FLIGHT_WINDOW`; nil for none) the program
    /// keeps its recent events always, in rotating segment files under DIR within a disk
    /// budget (default 64 MiB and the last 10 minutes), for `pipescope dump`. A directory
    /// that cannot be written, or a disk that fills, stops the flight recorder with a
    /// message on standard error; the program runs on.
    ///
    /// The pipelines' health goes out as swift-metrics (see the Metrics article): to the
    /// program's own `MetricsSystem` once it bootstraps one, or, with
    /// `PIPESCOPE_METRICS_LISTEN=host:port`, to Pipescope's own registry, served at
    /// `GET /metrics` in Prometheus' text format (an address other than loopback needs
    /// `PIPESCOPE_TOKEN`, sent by each scrape as a bearer token).
    ///
    /// ```swift
    /// Pipescope.start(flightRecorder: .init(directory: "/var/tmp/app-flight", budget: 16 << 20))
    /// ```
    ///
    /// - Returns: the socket path being served, or nil if serving failed.
    @discardableResult
    public static func start(retention: Retention = .fromEnvironment(),
                             flightRecorder: FlightRecorder.Options? = .fromEnvironment()) -> String? {
        running.withLockedValue { server in
            if let server { return server.path }
            let probe = Probe(retention: retention)
            let path = SocketLocation.ownPath()
            let environment = ProcessInfo.processInfo.environment
            let recording = environment["PIPESCOPE_RECORD"].flatMap { $0.isEmpty ? nil : $0 }
            do {
                let started = try ProbeServer(probe: probe, path: path, recordTo: recording, flight: flightRecorder)
                do {
                    let measured = try Self.startMetrics(probe: probe, server: started, environment: environment)
                    metrics.withLockedValue { $0 = measured }
                } catch {
                    started.close()
                    throw error
                }
                probe.enable()
                server = started
                if recording != nil || flightRecorder != nil, !endsRecordingAtExit.exchange(true, ordering: .relaxed) {
                    atexit { Pipescope.finishRecordingAtExit() }
                }
                return path
            } catch {
                FileHandle.standardError.write(Data("pipescope: not started: \(error)\n".utf8))
                return nil
            }
        }
    }

    /// The metrics (PipescopeMetrics' ``PipelineMetrics``), kept while started.
    private static let metrics = LockedBox<PipelineMetrics?>(nil)

    /// With `PIPESCOPE_METRICS_LISTEN=host:port`, the metrics go to a registry of
    /// Pipescope's own, served at `/metrics` on the probe's event loop (the global
    /// `MetricsSystem` is never bootstrapped, so the program still may); otherwise to the
    /// program's `MetricsSystem`, once it bootstraps one. A listener that cannot start
    /// (an address other than loopback without PIPESCOPE_TOKEN, a port in use) stops
    /// `start()` as PIPESCOPE_LISTEN's does: nothing is served, and standard error says why.
    private static func startMetrics(probe: Probe, server: ProbeServer, environment: [String: String]) throws
        -> PipelineMetrics {
        guard let listen = environment["PIPESCOPE_METRICS_LISTEN"], !listen.isEmpty else {
            let metrics = PipelineMetrics(probe: probe)
            metrics.start()
            return metrics
        }
        let registry = PrometheusCollectorRegistry()
        let metrics = PipelineMetrics(probe: probe, factory: PipelineMetrics.prometheusFactory(registry: registry))
        _ = try server.serveMetrics(environment: environment) { registry.emitToBuffer() }
        metrics.start()
        return metrics
    }

    /// Stops tapping and serving, and removes the socket. Pipelines keep running.
    public static func stop() {
        metrics.withLockedValue { $0?.stop(); $0 = nil }
        running.withLockedValue { server in
            server?.probe.disable()
            server?.close()
            server = nil
        }
    }

    private static let endsRecordingAtExit = Atomic<Bool>(false)

    /// A program that exits (`exit`, or returning from `main`) while recording itself
    /// closes its recording with the end mark, "the program exited", after a last flush.
    private static func finishRecordingAtExit() {
        running.withLockedValue { $0 }?.finishRecording(reason: "the program exited")
    }

    /// The socket path being served, if started.
    public static var socketPath: String? { running.withLockedValue { $0?.path } }

    /// This library's release ("0.1.0"), the same as `pipescope --version` says for the
    /// inspector built from the same release.
    public static var version: String { ReleaseVersion.current }
}
