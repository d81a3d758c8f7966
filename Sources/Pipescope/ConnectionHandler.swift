import NIOCore
import PipescopeWire

/// One inspector connection: reads frames, checks the handshake, and reports a clear
/// error for anything it cannot accept before closing. Nothing a peer sends can reach
/// the program's pipelines; the worst it can do is be disconnected.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var decoder = FrameDecoder()
    private var greeted = false
    private var readOnly = false
    private var helloDeadline: Scheduled<Void>?
    private let hub: InspectorHub
    /// Required in Hello when set (TCP with PIPESCOPE_TOKEN).
    private let token: String?

    init(hub: InspectorHub, token: String? = nil) {
        self.hub = hub
        self.token = token
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        helloDeadline = context.eventLoop.scheduleTask(in: ProbeServer.helloTimeout) {
            Self.refuse(channel, "no Hello within \(ProbeServer.helloTimeout.nanoseconds / 1_000_000_000) s; "
                + "connect with `pipescope attach`")
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        decoder.append(bytes.readableBytesView)
        do {
            while let payload = try decoder.next() {
                try handle(try ClientMessage.decode(payload: payload), context: context)
            }
        } catch {
            Self.refuse(context.channel, "\(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloDeadline?.cancel()
        hub.detach(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func handle(_ message: ClientMessage, context: ChannelHandlerContext) throws {
        switch message.body {
        case .hello(let hello)?:
            guard !greeted else { throw FrameError.malformed("a second Hello on one connection") }
            guard hello.protocolVersion == ProtocolVersion.current else {
                Self.refuse(context.channel, ProtocolVersion.mismatchMessage(
                    local: ProtocolVersion.current, remote: hello.protocolVersion))
                return
            }
            if let token, !Self.sameToken(hello.token, token) {
                Self.refuse(context.channel, hello.token.isEmpty
                    ? "this program requires a token: set PIPESCOPE_TOKEN to the program's token, or pass --token"
                    : "wrong token: check PIPESCOPE_TOKEN or --token against the program's PIPESCOPE_TOKEN")
                return
            }
            greeted = true
            readOnly = hello.readonly
            helloDeadline?.cancel()
            hub.attach(context.channel, readOnly: hello.readonly)
        case .command(let command)?:
            guard greeted else { throw FrameError.malformed("a Command before Hello") }
            hub.handle(command, from: context.channel, readOnly: readOnly)
        case nil:
            throw FrameError.malformed("a message of a kind this probe does not know")
        }
    }

    /// Compares in time independent of where the first difference is.
    static func sameToken(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }

    /// Sends an Error the peer can show, then closes.
    private static func refuse(_ channel: Channel, _ text: String) {
        let frame = channel.allocator.buffer(bytes: ServerMessage.error(text).framed())
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
    }
}
