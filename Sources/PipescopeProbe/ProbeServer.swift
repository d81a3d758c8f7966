import Foundation
import NIOCore
import NIOPosix
import PipescopeGraph
import PipescopeRecording
import PipescopeTap
import PipescopeWire

/// Serves a ``Probe`` to inspectors over a Unix domain socket (mode 0600, in a 0700
/// directory). One NIO event-loop thread does all of it; it never touches the
/// program's pipelines except through the probe's buffer. What peers may hold (how many
/// connections, for how long without a Hello, how much unread data) is bounded by
/// ``ServerLimits``, whatever they do.
final package class ProbeServer: @unchecked Sendable {
    static let flushInterval = TimeAmount.milliseconds(Int64(FlushInterval.milliseconds))

    package let probe: Probe
    package let path: String
    let limits: ServerLimits
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let flushTask: RepeatedTask
    private let hub: InspectorHub
    private let admission: Admission
    private var tcpChannel: Channel?
    /// The TCP address being served, when PIPESCOPE_LISTEN asked for one.
    private(set) var tcpAddress: String?
    /// PIPESCOPE_METRICS_LISTEN's listener (``serveMetrics(environment:render:)``).
    private var metricsChannel: Channel?

    /// `environment` is where PIPESCOPE_LISTEN, PIPESCOPE_TOKEN and PIPESCOPE_READONLY
    /// are read (the process's own, except in tests).
    /// `flight`: the flight recorder's options (``FlightRecorder``), if it is on.
    package init(probe: Probe, path: String, recordTo recording: String? = nil, limits: ServerLimits = .standard,
         environment: [String: String] = ProcessInfo.processInfo.environment,
         flight: FlightRecorder.Options? = nil) throws {
        self.probe = probe
        self.path = path
        self.limits = limits
        try SocketFile.prepare(path)
        InspectorHub.startTime = wallClockNanos()
        let (recorder, recordingFailure) = Self.openRecording(recording)
        let readOnly = environment["PIPESCOPE_READONLY"] == "1"
        let flightRecorder = flight.flatMap { Self.openFlightRecorder($0, probe: probe) }
        let hub = InspectorHub(probe: probe, recorder: recorder, recordingFailure: recordingFailure, readOnly: readOnly,
                               flight: flightRecorder, limits: limits)
        self.hub = hub
        let admission = Admission(limits: limits)
        self.admission = admission
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = Self.bootstrap(group: group, limits: limits, hub: hub, admission: admission, token: nil)
        // Bound under a temporary name, made private, then renamed into place: the
        // socket never appears at its real path with the umask's looser mode.
        let staging = (path as NSString).deletingLastPathComponent + "/.\(getpid()).binding"
        unlink(staging)
        do {
            channel = try bootstrap.bind(unixDomainSocketPath: staging).wait()
            // Removed at exit and on SIGTERM from before it appears: a SIGTERM sent the
            // moment the socket is seen (a test, a supervisor) still finds the handler.
            SocketFile.removeAtExit(path)
            guard chmod(staging, 0o600) == 0, rename(staging, path) == 0 else {
                throw SocketFile.Failure.directory((path as NSString).deletingLastPathComponent,
                                                   String(cString: strerror(errno)))
            }
        } catch {
            SocketFile.removed(path)
            unlink(staging)
            try? group.syncShutdownGracefully()
            throw error
        }
        // Kept after the program ends: `pipescope dump <pid>` finds a crashed program's
        // segments through it.
        if let problem = FlightSegments.announce(flightRecorder == nil ? nil : flight?.directory, socket: path) {
            Self.say(problem)
        }
        do {
            tcpChannel = try Self.listenTCP(group: group, limits: limits, hub: hub, admission: admission,
                                            environment: environment)
        } catch {
            try? channel.close().wait()
            unlink(path)
            SocketFile.removed(path)
            try? group.syncShutdownGracefully()
            throw error
        }
        tcpAddress = tcpChannel?.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
        flushTask = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: Self.flushInterval, delay: Self.flushInterval
        ) { _ in hub.flush() }
        // A burst fills the buffer faster than the interval: flush as soon as it is half
        // full, so the buffer drops only when the program outruns the flush itself.
        let loop = channel.eventLoop
        probe.onBufferHalfFull { loop.execute { hub.flush() } }
        // A recording ended by SIGTERM (`kill`, a service manager) gets its last flush and
        // end mark too, as at exit (the handler is Pipescope's only while the program has
        // none of its own).
        if recorder != nil || flightRecorder != nil {
            TerminateCleanup.finishFirst { [weak self] in self?.finishRecording(reason: Self.terminatedReason) }
        }
    }

    /// `PIPESCOPE_RECORD`'s file, or why there is none. A recording that cannot be
    /// opened, or stops later (a full disk), is said on standard error and the program
    /// runs on, served and unrecorded: a recording never stops the program.
    private static func openRecording(_ path: String?) -> (RecordingWriter?, String?) {
        guard let path else { return (nil, nil) }
        do {
            return (try RecordingWriter(path: path) { failure in say("\(failure)") }, nil)
        } catch {
            let text = "not recording (PIPESCOPE_RECORD): \(error). The program runs on, unrecorded."
            say(text)
            return (nil, text)
        }
    }

    /// The flight recorder, or nil after saying on standard error why it cannot start:
    /// it never stops the program.
    private static func openFlightRecorder(_ options: FlightRecorder.Options, probe: Probe) -> FlightRecorder? {
        let (options, problems) = options.checked()
        for problem in problems { say(problem) }
        do {
            return try FlightRecorder(options: options, welcome: InspectorHub.welcome(), startNanos: InspectorHub.startTime,
                                      snapshot: probe.snapshot(), now: wallClockNanos()) { say($0) }
        } catch {
            say("\(error)")
            return nil
        }
    }

    /// A line on standard error, written directly: never a Swift error if stderr is gone.
    static func say(_ text: String) {
        let line = Array("pipescope: \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// One listener's bootstrap. The Unix and TCP listeners share `admission`, so the
    /// limits count every connection, however it came.
    private static func bootstrap(group: EventLoopGroup, limits: ServerLimits, hub: InspectorHub,
                                  admission: Admission, token: String?) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: limits.backlog)
            // One accept per wake-up: NIO makes an accepted channel active on the loop's
            // next turn, so a batch of accepts would hold descriptors Admission has not
            // counted yet. One at a time, it counts each before the next is accepted.
            .serverChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limits.sendBuffer))
            .childChannelOption(.writeBufferWaterMark, value: limits.queued)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(hub: hub, admission: admission, token: token))
                }
            }
    }

    /// PIPESCOPE_LISTEN=host:port serves inspectors over TCP too. Loopback only unless
    /// PIPESCOPE_TOKEN is set; with a token, every TCP inspector must present it.
    private static func listenTCP(group: EventLoopGroup, limits: ServerLimits, hub: InspectorHub,
                                  admission: Admission, environment: [String: String]) throws -> Channel? {
        guard let listen = environment["PIPESCOPE_LISTEN"], !listen.isEmpty else { return nil }
        let token = environment["PIPESCOPE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let endpoint = try Endpoint.parseAddress(listen, what: "PIPESCOPE_LISTEN=host:port")
        guard case .tcp(let host, let port) = endpoint else { return nil }
        guard endpoint.isLoopback || token != nil else { throw TCPRefusal(address: listen) }
        return try bootstrap(group: group, limits: limits, hub: hub, admission: admission, token: token)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port).wait()
    }

    /// Serves `GET /metrics` with `render`'s text on this server's event loop, when
    /// PIPESCOPE_METRICS_LISTEN asks for it (see ``MetricsListener``); the address bound,
    /// or nil when not asked. Called once, by `Pipescope.start()`, before the server is
    /// shared. A refused address throws and nothing is served: the caller says why.
    package func serveMetrics(environment: [String: String] = ProcessInfo.processInfo.environment,
                              render: @escaping @Sendable () -> [UInt8]) throws -> String? {
        metricsChannel = try MetricsListener.listen(group: group, environment: environment, render: render)
        return metricsChannel?.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
    }

    // MARK: - For tests and diagnostics

    /// The connections held now, by state (read on the server's thread).
    func connectionCounts() -> (handshaking: Int, greeted: Int, closing: Int) {
        let admission = self.admission
        return (try? channel.eventLoop.submit { admission.counts }.wait()) ?? (0, 0, 0)
    }

    /// Inspectors that were skipped for being slow and wait for their resync snapshot.
    func inspectorsBehind() -> Int {
        let hub = self.hub
        return (try? channel.eventLoop.submit { hub.inspectorsBehind }.wait()) ?? 0
    }

    struct TCPRefusal: Error, CustomStringConvertible {
        var address: String
        var description: String {
            "PIPESCOPE_LISTEN=\(address) is reachable from other machines, so it needs PIPESCOPE_TOKEN; "
                + "set a token, or listen on 127.0.0.1 and use an ssh tunnel"
        }
    }

    /// Ends the recording as the program exits: the last flush, then the end mark saying
    /// "the program exited". Waits at most `timeout` seconds for the disk, so a stuck
    /// disk cannot hold the program's exit; the file is readable either way.
    /// `symbols`: how long the last flush waits, at most, for where the stages flushed so
    /// far were made (the symbol thread works behind the flushes): a program that runs
    /// for a second, a test suite, would otherwise leave a recording without locations.
    package func finishRecording(reason: String, timeout: Double = 2, symbols: Double = 1) {
        let hub = self.hub
        let probe = self.probe
        let done = DispatchSemaphore(value: 0)
        channel.eventLoop.execute {
            hub.flush()
            let deadline = Date(timeIntervalSinceNow: symbols)
            while probe.locationsPending, deadline.timeIntervalSinceNow > 0 {
                probe.waitForSymbols(until: deadline)
                hub.flush()
            }
            hub.close(reason: reason)
            done.signal()
        }
        _ = done.wait(timeout: .now() + timeout + symbols)
    }

    /// The end mark's reason when SIGTERM ended the program.
    static let terminatedReason = "the program was ended by SIGTERM"

    package func close() {
        TerminateCleanup.finishFirst(nil)
        flushTask.cancel()
        probe.onBufferHalfFull(nil)
        try? tcpChannel?.close().wait()
        try? metricsChannel?.close().wait()
        let hub = self.hub
        try? channel.eventLoop.submit { hub.flush(); hub.close() }.wait()
        try? channel.close().wait()
        unlink(path)
        SocketFile.removed(path)
        try? group.syncShutdownGracefully()
    }
}
