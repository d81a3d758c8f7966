import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeWire

/// A connection from the inspector to one probe.
///
/// It says Hello, then turns every frame the probe sends into the model's ``Message``
/// (see ``Message/init(_:reader:)``) in an inbox that the UI drains on its own schedule
/// (``poll()``), or that a command waits on (``next(timeout:)``). The network runs on one
/// NIO thread; the inbox is the only thing shared with the caller.
///
/// ```swift
/// let connection = try ProbeConnection.connect(path: "/run/user/1000/pipescope/4242.sock")
/// while let message = connection.next(timeout: 2) { … }
/// ```
public final class ProbeConnection: @unchecked Sendable {
    public let path: String
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let inbox: Inbox
    private let closed = NIOLockedValueBox(false)
    private let nextCommandID = NIOLockedValueBox<UInt64>(0)

    private init(path: String, group: MultiThreadedEventLoopGroup, channel: Channel, inbox: Inbox) {
        self.path = path
        self.group = group
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects and sends Hello. Throws a ``ClientError`` that says what to do.
    public static func connect(path: String, client: String = "pipescope", readOnly: Bool = false) throws -> ProbeConnection {
        try connect(to: .unix(path), client: client, readOnly: readOnly)
    }

    /// Connects to a Unix socket or a TCP address and sends Hello (with `token` for TCP).
    public static func connect(to endpoint: Endpoint, client: String = "pipescope", readOnly: Bool = false,
                               token: String? = nil) throws -> ProbeConnection {
        let connection = try connectWithoutHello(to: endpoint)
        var hello = ClientMessage.hello(client: client, readOnly: readOnly)
        hello.hello.token = token ?? ""
        connection.sendRaw(hello.framed())
        return connection
    }

    /// Connects without saying Hello: for tests that play a broken or hostile inspector.
    public static func connectWithoutHello(path: String) throws -> ProbeConnection {
        try connectWithoutHello(to: .unix(path))
    }

    public static func connectWithoutHello(to endpoint: Endpoint) throws -> ProbeConnection {
        let path = endpoint.description
        if case .unix(let socketPath) = endpoint { try checkSocket(at: socketPath) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let inbox = Inbox()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(Int64(connectTimeoutSeconds)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundFrames(inbox: inbox))
                }
            }
        let channel: Channel
        do {
            switch endpoint {
            case .unix(let socketPath): channel = try bootstrap.connect(unixDomainSocketPath: socketPath).wait()
            case .tcp(let host, let port): channel = try bootstrap.connect(host: host, port: port).wait()
            }
        } catch {
            try? group.syncShutdownGracefully()
            if case .tcp(let host, let port) = endpoint {
                throw ClientError.unreachable(host: host, port: port, why: ConnectFailure(error))
            }
            let code = (error as? IOError)?.errnoCode
            if code == ECONNREFUSED { throw ClientError.notListening(path: path) }
            if code == ENOENT { throw ClientError.noProbe(path: path) }
            if code == EACCES { throw ClientError.permissionDenied(path: path) }
            throw ClientError.connectionFailed(path: path, reason: code.map { String(cString: strerror($0)) } ?? "\(error)")
        }
        return ProbeConnection(path: path, group: group, channel: channel, inbox: inbox)
    }

    /// Seconds a TCP connect may take before it is given up.
    static let connectTimeoutSeconds = 3

    /// Throws when `path` cannot be a program's socket: nothing there, not allowed, or
    /// something else (a directory, a regular file, a recording), each said as what it is.
    /// Connecting to a regular file or a directory fails as a dead socket does
    /// (ECONNREFUSED), so this is the only place that can tell them apart.
    private static func checkSocket(at path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == EACCES { throw ClientError.permissionDenied(path: path) }
            throw ClientError.noProbe(path: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFSOCK:
            return
        case S_IFREG where Recording.startsAsRecording(path: path):
            throw ClientError.recordingNotSocket(path: path)
        default:
            throw ClientError.notASocket(path: path, what: FileKind.describe(mode: info.st_mode))
        }
    }


    /// Everything received since the last call, without waiting. A `.disconnected`
    /// message is the last one: the probe refused, closed, or sent something unreadable.
    public func poll() -> [Message] { inbox.takeAll() }

    /// The next message, waiting at most `timeout` seconds.
    public func next(timeout: Double) -> Message? { inbox.take(timeout: timeout) }

    /// The probe's Welcome, once it arrived: who the program is, for a recording's header.
    public var welcome: WireWelcome? { inbox.welcome }

    /// Why the connection failed, once it has: the probe sent something unreadable, or
    /// refused (its own error, another protocol version), or the network failed. Nil
    /// while it is open, and when the program closed it (it exited or stopped Pipescope):
    /// the text of the `.disconnected` message says which, this says whether it was an
    /// error (`pipescope record` exits 1 then).
    public var failure: String? { inbox.failure }

    /// Sends a command; the `.acknowledged` message answering it comes in order.
    @discardableResult
    public func send(_ command: WireCommand) -> UInt64 {
        var command = command
        command.id = nextCommandID.withLockedValue { id in
            id += 1
            return id
        }
        sendRaw(ClientMessage.command(command).framed())
        return command.id
    }

    /// Sends raw bytes as they are: for tests that play a hostile or broken inspector.
    public func sendRaw(_ bytes: [UInt8]) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    /// Closes the connection and its thread. Safe to call more than once.
    public func close() {
        guard closed.withLockedValue({ was in defer { was = true }; return !was }) else { return }
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// Waits for the Welcome and the first Snapshot; throws a ``ClientError`` if the probe
    /// refuses (another protocol version included), closes, or is silent past `timeout`.
    public func handshake(timeout: Double = 5) throws -> (welcome: WireWelcome, snapshot: GraphSnapshot) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let message = next(timeout: left) else {
                throw ClientError.timedOut(path: path, waitingFor: welcome == nil ? "its welcome" : "a snapshot")
            }
            switch message {
            case .snapshot(let s):
                if let welcome { return (welcome, s) }
            case .disconnected(let text):
                throw ClientError.refused(path: path, message: text)
            default:
                continue
            }
        }
    }
}

/// Messages received and not yet taken, guarded by a condition variable.
final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Message] = []
    private var closed = false
    private var welcomeMessage: WireWelcome?
    private var failureText: String?

    var welcome: WireWelcome? {
        condition.lock(); defer { condition.unlock() }
        return welcomeMessage
    }

    func noteWelcome(_ welcome: WireWelcome) {
        condition.lock(); defer { condition.unlock() }
        welcomeMessage = welcome
    }

    var failure: String? {
        condition.lock(); defer { condition.unlock() }
        return failureText
    }

    /// The last message: the connection is over, in error or not.
    func end(_ why: String, failed: Bool) {
        condition.lock()
        if !closed {
            if failed { failureText = why }
            items.append(.disconnected(why))
            closed = true
        }
        condition.signal()
        condition.unlock()
    }

    /// A message from the probe; the connection's end is ``end(_:failed:)``.
    func put(_ item: Message) {
        condition.lock()
        if !closed { items.append(item) }
        condition.signal()
        condition.unlock()
    }

    func takeAll() -> [Message] {
        condition.lock(); defer { condition.unlock() }
        let all = items
        items.removeAll(keepingCapacity: true)
        return all
    }

    func take(timeout: Double) -> Message? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock(); defer { condition.unlock() }
        while items.isEmpty {
            if !condition.wait(until: deadline) { return nil }
        }
        return items.removeFirst()
    }
}

/// Reads frames from the probe, as the model's messages, into the inbox.
final class InboundFrames: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var decoder = FrameDecoder()
    private var stream = WireStreamReader()
    private var parts = SnapshotJoiner()
    private let inbox: Inbox
    private var reported = false

    init(inbox: Inbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let payload = try decoder.next() {
                guard let frame = try parts.join(ServerMessage.decode(payload: payload)) else { continue }
                if case .welcome(let w)? = frame.body { inbox.noteWelcome(w) }
                let message = try Message(frame, reader: &stream)
                if case .disconnected(let why) = message {
                    // Refused (a version mismatch, or the probe's own error): nothing more.
                    disconnect(context, why, failed: true)
                    return
                }
                inbox.put(message)
            }
        } catch {
            disconnect(context, "\(error)", failed: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        disconnect(context, "the program closed the connection (it exited, or stopped Pipescope)", failed: false)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A reset is how a killed program's end can reach us (over TCP, when it had not
        // read everything we sent): it went away, like a close, and is not our failure.
        if let code = (error as? IOError)?.errnoCode, code == ECONNRESET || code == EPIPE {
            disconnect(context, "the program reset the connection (it was killed, or exited)", failed: false)
            return
        }
        disconnect(context, "connection error: \(error)", failed: true)
    }

    private func disconnect(_ context: ChannelHandlerContext, _ why: String, failed: Bool) {
        guard !reported else { return }
        reported = true
        inbox.end(why, failed: failed)
        context.close(promise: nil)
    }
}
