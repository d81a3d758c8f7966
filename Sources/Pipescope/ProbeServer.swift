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
        do {
            channel = try bootstrap.bind(unixDomainSocketPath: path).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        chmod(path, 0o600)
        SocketFile.removeAtExit(path)
        flushTask = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: Self.flushInterval, delay: Self.flushInterval
        ) { _ in hub.flush() }
    }

    func close() {
        flushTask.cancel()
        let hub = self.hub
        try? channel.eventLoop.submit { hub.flush(); hub.close() }.wait()
        try? channel.close().wait()
        unlink(path)
        try? group.syncShutdownGracefully()
    }
}
