import Foundation
import NIOCore
import NIOPosix
import PipescopeWire

/// Serves a ``Probe`` to inspectors over a Unix domain socket (mode 0600, in a 0700
/// directory). One NIO event-loop thread does all of it; it never touches the
/// program's pipelines except through the probe's buffer.
final class ProbeServer: @unchecked Sendable {
    static let flushInterval = TimeAmount.milliseconds(25)
    static let helloTimeout = TimeAmount.seconds(5)

    let probe: Probe
    let path: String
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let flushTask: RepeatedTask
    private let hub: InspectorHub
    private var tcpChannel: Channel?
    /// The TCP address being served, when PIPESCOPE_LISTEN asked for one.
    private(set) var tcpAddress: String?

    init(probe: Probe, path: String, recordTo recording: String? = nil) throws {
        self.probe = probe
        self.path = path
        try SocketFile.prepare(path)
        InspectorHub.startTime = wallClockNanos()
        let recorder = try recording.map { try RecordingWriter(path: $0) }
        let readOnly = ProcessInfo.processInfo.environment["PIPESCOPE_READONLY"] == "1"
        let hub = InspectorHub(probe: probe, recorder: recorder, readOnly: readOnly)
        self.hub = hub
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 16)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(hub: hub))
                }
            }
        // Bound under a temporary name, made private, then renamed into place: the
        // socket never appears at its real path with the umask's looser mode.
        let staging = (path as NSString).deletingLastPathComponent + "/.\(getpid()).binding"
        unlink(staging)
        do {
            channel = try bootstrap.bind(unixDomainSocketPath: staging).wait()
            guard chmod(staging, 0o600) == 0, rename(staging, path) == 0 else {
                throw SocketFile.Failure.directory((path as NSString).deletingLastPathComponent,
                                                   String(cString: strerror(errno)))
            }
        } catch {
            unlink(staging)
            try? group.syncShutdownGracefully()
            throw error
        }
        SocketFile.removeAtExit(path)
        do {
            tcpChannel = try Self.listenTCP(group: group, hub: hub)
        } catch {
            try? channel.close().wait()
            unlink(path)
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
    }

    /// PIPESCOPE_LISTEN=host:port serves inspectors over TCP too. Loopback only unless
    /// PIPESCOPE_TOKEN is set; with a token, every TCP inspector must present it.
    private static func listenTCP(group: EventLoopGroup, hub: InspectorHub) throws -> Channel? {
        let environment = ProcessInfo.processInfo.environment
        guard let listen = environment["PIPESCOPE_LISTEN"], !listen.isEmpty else { return nil }
        let token = environment["PIPESCOPE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let endpoint = try Endpoint.parseAddress(listen, what: "PIPESCOPE_LISTEN=host:port")
        guard case .tcp(let host, let port) = endpoint else { return nil }
        guard endpoint.isLoopback || token != nil else { throw TCPRefusal(address: listen) }
        return try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(hub: hub, token: token))
                }
            }
            .bind(host: host, port: port).wait()
    }

    struct TCPRefusal: Error, CustomStringConvertible {
        var address: String
        var description: String {
            "PIPESCOPE_LISTEN=\(address) is reachable from other machines, so it needs PIPESCOPE_TOKEN; "
                + "set a token, or listen on 127.0.0.1 and use an ssh tunnel"
        }
    }

    func close() {
        flushTask.cancel()
        probe.onBufferHalfFull(nil)
        try? tcpChannel?.close().wait()
        let hub = self.hub
        try? channel.eventLoop.submit { hub.flush(); hub.close() }.wait()
        try? channel.close().wait()
        unlink(path)
        try? group.syncShutdownGracefully()
    }
}
