import Foundation
import NIOCore
import PipescopeGraph
import PipescopeRecording
import PipescopeTap
import PipescopeWire

/// The inspectors attached to one probe, and the periodic flush that feeds them.
///
/// Confined to the server's event loop: every method runs there, so no lock is needed.
/// A batch is encoded once and written to every inspector. An inspector whose socket
/// is full is skipped (never waited for) and gets a fresh snapshot once it drains; the
/// snapshot says how many events it missed.
///
/// With `PIPESCOPE_RECORD`, each flush also goes to the recording, as one write on the
/// recording's own thread (``RecordingWriter``). A recording that stops (a full disk, an
/// unwritable path) is said once to every inspector, and to each that attaches later, as
/// a notice: an `Ack` with command id 0 and `ok` false, which the status line shows.
final class InspectorHub: @unchecked Sendable {
    private let probe: Probe
    private var inspectors: [ObjectIdentifier: Inspector] = [:]
    /// `PIPESCOPE_RECORD`: the program records its own session, as `pipescope record` would.
    private let recorder: RecordingWriter?
    /// Why the recording stopped (or never started), once it did: said to every inspector.
    private var recordingNotice: String?
    /// `PIPESCOPE_FLIGHT`: the program's recent events, always, in rotating segments.
    private let flight: FlightRecorder?

    /// Confined to the event loop like the hub; sendable only to hop back onto it.
    private final class Inspector: @unchecked Sendable {
        let channel: Channel
        var needsSnapshot = false
        /// Events in batches this inspector missed since its last snapshot.
        var skipped: UInt64 = 0
        /// Bytes of batches queued for it while it reads a snapshot too big for its
        /// queue (which alone makes the channel unwritable); nil once it has drained, or
        /// when its snapshot was small. See ``ServerLimits/catchUp``.
        var catchingUp: Int?
        /// What it is sent while its snapshot is encoded off the event loop, held to
        /// follow that snapshot; nil when none is being encoded.
        var held: [ByteBuffer]?
        var heldBytes = 0
        init(channel: Channel) { self.channel = channel }
    }

    private let commands: CommandHandler
    /// The string table of the stream every inspector reads (they all get the same
    /// frames; one that misses some gets the whole table again in its snapshot).
    private var stream = WireStreamWriter()
    /// Encodes big snapshots off the event loop (``sendSnapshot(to:skipped:)``).
    private let encoder = DispatchQueue(label: "pipescope.snapshot-encoder")

    /// `recordingFailure`: why `PIPESCOPE_RECORD` could not be opened, for inspectors.
    /// How big a snapshot is, and how much is queued behind it, before an inspector
    /// counts as slow (``ServerLimits``).
    private let limits: ServerLimits

    init(probe: Probe, recorder: RecordingWriter? = nil, recordingFailure: String? = nil, readOnly: Bool = false,
         flight: FlightRecorder? = nil, limits: ServerLimits = .standard) {
        self.probe = probe
        self.limits = limits
        stream.snapshotPartBytes = limits.snapshotPart
        self.recorder = recorder
        self.flight = flight
        recordingNotice = recordingFailure
        commands = CommandHandler(probe: probe, programReadOnly: readOnly)
        recorder?.append(Self.welcome())
        recorder?.append(probe.snapshot())
    }

    func flush() {
        let batch = probe.flush()
        let hasNews = batch.hasNews
        // A flush can exceed one frame (every value captured, in a burst): send it in parts.
        let parts = hasNews ? batch.parts() : []
        recorder?.append(batches: parts)
        // Every flush, with news or not: the window and the segment's age move on.
        flight?.append(batches: parts, now: wallClockNanos(), snapshot: probe.snapshot)
        noticeRecordingFailure()
        // Encode before any snapshot below: the parts may add names to the string table,
        // and a snapshot must carry every name later batches will refer to by id.
        var frames: [ByteBuffer] = []
        if let any = inspectors.values.first {
            frames = parts.map { any.channel.allocator.buffer(bytes: stream.message($0).framed()) }
        }
        let frameBytes = frames.reduce(0) { $0 + $1.readableBytes }
        for inspector in inspectors.values {
            if inspector.held != nil {
                if hasNews { hold(frames, bytes: frameBytes, events: batch.events.count, for: inspector) }
                continue
            }
            let writable = inspector.channel.isWritable
            // Back under its queue's low mark: whatever it was reading, it has read.
            if writable { inspector.catchingUp = nil }
            // Still reading a big snapshot: the batches behind it are queued (within
            // the catch-up limit) rather than skipped, or it would get snapshots only.
            let catchingUp = !writable && (inspector.catchingUp.map { $0 + frameBytes <= limits.catchUp } ?? false)
            guard writable || catchingUp else {
                inspector.catchingUp = nil
                if hasNews {
                    inspector.needsSnapshot = true
                    inspector.skipped += UInt64(batch.events.count)
                }
                continue
            }
            if inspector.needsSnapshot {
                // The snapshot covers this batch too: its events are skipped as well.
                inspector.needsSnapshot = false
                inspector.skipped += UInt64(batch.events.count)
                sendSnapshot(to: inspector, skipped: inspector.skipped)
                inspector.skipped = 0
            } else if hasNews {
                for frame in frames { inspector.channel.write(frame, promise: nil) }
                inspector.channel.flush()
                if catchingUp { inspector.catchingUp? += frameBytes }
            }
        }
    }

    /// A greeted inspector: bring everyone up to date, then hand it the snapshot.
    func attach(_ channel: Channel, readOnly: Bool = false) {
        flush()
        var welcome = Self.welcome()
        welcome.welcome.readonly = readOnly || commands.programReadOnly
        send(welcome, to: channel)
        let inspector = Inspector(channel: channel)
        inspectors[ObjectIdentifier(channel)] = inspector
        sendSnapshot(to: inspector)
        if let recordingNotice { send(Self.notice(recordingNotice), to: inspector) }
    }

    /// Once the recording has stopped, tells every inspector why (once).
    private func noticeRecordingFailure() {
        guard recordingNotice == nil, let failure = recorder?.failure else { return }
        let text = failure.description
        recordingNotice = text
        for inspector in inspectors.values { send(Self.notice(text), to: inspector) }
    }

    /// A message for the inspector's status line that answers no command.
    static func notice(_ text: String) -> ServerMessage {
        var message = ServerMessage()
        message.ack.commandID = 0
        message.ack.ok = false
        message.ack.message = "pipescope: " + text
        return message
    }

    /// Carries out a command and answers it. A requested snapshot is cut after a flush,
    /// like the first one.
    func handle(_ command: Pipescope_V1_Command, from channel: Channel, readOnly: Bool) {
        let (ack, wantsSnapshot) = commands.handle(command, from: ObjectIdentifier(channel), inspectorReadOnly: readOnly)
        let inspector = inspectors[ObjectIdentifier(channel)] ?? Inspector(channel: channel)
        if wantsSnapshot {
            flush()
            sendSnapshot(to: inspector)
        }
        var message = ServerMessage()
        message.ack = ack
        send(message, to: inspector)
    }

    /// Inspectors skipped for being slow, waiting for their resync snapshot.
    var inspectorsBehind: Int { inspectors.values.filter(\.needsSnapshot).count }

    func detach(_ channel: Channel) {
        probe.gate.inspectorLeft(ObjectIdentifier(channel))
        guard inspectors.removeValue(forKey: ObjectIdentifier(channel)) != nil else { return }
        // Watched stages cost the program a description per value: nobody is left to
        // read them once the last inspector has gone.
        if inspectors.isEmpty { probe.registry.unwatchAll() }
    }

    static func welcome() -> ServerMessage {
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = ProtocolVersion.current
        welcome.welcome.pid = getpid()
        welcome.welcome.processName = ProcessInfo.processInfo.processName
        welcome.welcome.startTimeNs = startTime
        return welcome
    }

    /// Sends a snapshot cut now, with the stream's string table as it stands (in parts
    /// when it passes the frame limit).
    ///
    /// A graph of more than ``ServerLimits/encodeApart`` stages is encoded on a thread
    /// of its own, not on the event loop: meanwhile the loop goes on flushing the tap's
    /// buffer (which would otherwise fill and drop the program's events), and holds what
    /// this inspector is sent until its snapshot has gone.
    private func sendSnapshot(to inspector: Inspector, skipped: UInt64 = 0) {
        // One is on its way (asked for again before it went): it answers this too.
        guard inspector.held == nil else { return }
        var snapshot = probe.snapshot()
        snapshot.skippedEvents = skipped
        guard snapshot.nodes.count > limits.encodeApart else {
            var writer = stream
            return sent(writer.frames(snapshot), to: inspector)
        }
        inspector.held = []
        inspector.heldBytes = 0
        let writer = stream, cut = snapshot
        let loop = inspector.channel.eventLoop
        encoder.async {
            var writer = writer
            let frames = writer.frames(cut)
            loop.execute {
                // Gone while its snapshot was encoded: nothing to send.
                guard self.inspectors[ObjectIdentifier(inspector.channel)] === inspector else { return }
                self.sent(frames, to: inspector)
            }
        }
    }

    /// Writes a snapshot's frames, then what was held behind them. The inspector may
    /// catch up behind a snapshot that alone passes its queue's high mark.
    private func sent(_ frames: [[UInt8]], to inspector: Inspector) {
        let held = inspector.held ?? [], heldBytes = inspector.heldBytes
        inspector.held = nil
        inspector.heldBytes = 0
        let channel = inspector.channel
        for frame in frames { channel.write(channel.allocator.buffer(bytes: frame), promise: nil) }
        for buffer in held { channel.write(buffer, promise: nil) }
        channel.flush()
        let bytes = frames.reduce(heldBytes) { $0 + $1.count }
        // Behind already (more was held than the catch-up limit): it is resynchronised
        // once it has read this.
        inspector.catchingUp = bytes > limits.queued.high && !inspector.needsSnapshot ? heldBytes : nil
    }

    /// Holds a batch's frames behind a snapshot being encoded, within the catch-up
    /// limit; past it the inspector is behind, as a slow one is.
    private func hold(_ frames: [ByteBuffer], bytes: Int, events: Int, for inspector: Inspector) {
        guard !inspector.needsSnapshot, inspector.heldBytes + bytes <= limits.catchUp else {
            inspector.needsSnapshot = true
            inspector.skipped += UInt64(events)
            return
        }
        inspector.held?.append(contentsOf: frames)
        inspector.heldBytes += bytes
    }

    /// Sends a message now, or after the snapshot being encoded for this inspector.
    private func send(_ message: ServerMessage, to inspector: Inspector) {
        guard inspector.held != nil else { return send(message, to: inspector.channel) }
        let buffer = inspector.channel.allocator.buffer(bytes: message.framed())
        inspector.held?.append(buffer)
        inspector.heldBytes += buffer.readableBytes
    }

    private func send(_ message: ServerMessage, to channel: Channel) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: message.framed()), promise: nil)
    }

    /// When Pipescope started in this process (set before the first message is built).
    nonisolated(unsafe) static var startTime: Int64 = wallClockNanos()

    /// Ends the recording, if any, with its end mark saying `reason` (the file stays
    /// readable at every point anyway).
    package func close(reason: String = "Pipescope.stop() ended it") {
        recorder?.close(reason: reason)
        flight?.close(reason: reason)
    }
}
