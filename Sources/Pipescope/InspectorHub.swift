import Foundation
import NIOCore
import PipescopeGraph
import PipescopeWire

/// The inspectors attached to one probe, and the periodic flush that feeds them.
///
/// Confined to the server's event loop: every method runs there, so no lock is needed.
/// A batch is encoded once and written to every inspector. An inspector whose socket
/// is full is skipped (never waited for) and gets a fresh snapshot once it drains.
final class InspectorHub: @unchecked Sendable {
    private let probe: Probe
    private var inspectors: [ObjectIdentifier: Inspector] = [:]
    /// `PIPESCOPE_RECORD`: the program records its own session, as `pipescope record` would.
    private let recorder: RecordingWriter?

    private final class Inspector {
        let channel: Channel
        var needsSnapshot = false
        init(channel: Channel) { self.channel = channel }
    }

    private let commands: CommandHandler

    init(probe: Probe, recorder: RecordingWriter? = nil, readOnly: Bool = false) {
        self.probe = probe
        self.recorder = recorder
        commands = CommandHandler(probe: probe, programReadOnly: readOnly)
        recorder?.append(Self.welcome())
        recorder?.append(snapshotMessage())
    }

    func flush() {
        let batch = probe.flush()
        let hasNews = !batch.events.isEmpty || !batch.lastValues.isEmpty || batch.paused || !batch.resumedBecause.isEmpty
        if hasNews, let recorder {
            var message = ServerMessage()
            message.batch = batch
            recorder.append(message)
        }
        var frame: ByteBuffer?
        for inspector in inspectors.values {
            guard inspector.channel.isWritable else {
                if hasNews { inspector.needsSnapshot = true }
                continue
            }
            if inspector.needsSnapshot {
                inspector.needsSnapshot = false
                send(snapshotMessage(), to: inspector.channel)
            } else if hasNews {
                if frame == nil {
                    var message = ServerMessage()
                    message.batch = batch
                    frame = inspector.channel.allocator.buffer(bytes: message.framed())
                }
                inspector.channel.writeAndFlush(frame!, promise: nil)
            }
        }
    }

    /// A greeted inspector: bring everyone up to date, then hand it the snapshot.
    func attach(_ channel: Channel, readOnly: Bool = false) {
        flush()
        var welcome = Self.welcome()
        welcome.welcome.readonly = readOnly || commands.programReadOnly
        send(welcome, to: channel)
        send(snapshotMessage(), to: channel)
        inspectors[ObjectIdentifier(channel)] = Inspector(channel: channel)
    }

    /// Carries out a command and answers it. A requested snapshot is cut after a flush,
    /// like the first one.
    func handle(_ command: Pipescope_V1_Command, from channel: Channel, readOnly: Bool) {
        let (ack, wantsSnapshot) = commands.handle(command, from: ObjectIdentifier(channel), inspectorReadOnly: readOnly)
        if wantsSnapshot {
            flush()
            send(snapshotMessage(), to: channel)
        }
        var message = ServerMessage()
        message.ack = ack
        send(message, to: channel)
    }

    func detach(_ channel: Channel) {
        probe.gate.inspectorLeft(ObjectIdentifier(channel))
        inspectors[ObjectIdentifier(channel)] = nil
    }

    static func welcome() -> ServerMessage {
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = ProtocolVersion.current
        welcome.welcome.pid = getpid()
        welcome.welcome.processName = ProcessInfo.processInfo.processName
        welcome.welcome.startTimeNs = startTime
        return welcome
    }

    private func snapshotMessage() -> ServerMessage {
        var message = ServerMessage()
        message.snapshot = probe.snapshot()
        return message
    }

    private func send(_ message: ServerMessage, to channel: Channel) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: message.framed()), promise: nil)
    }

    /// When Pipescope started in this process (set before the first message is built).
    nonisolated(unsafe) static var startTime: Int64 = wallClockNanos()

    /// Ends the recording, if any (the file stays readable at every point anyway).
    func close() { recorder?.close() }
}
