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

    init(hub: InspectorHub) {
        self.hub = hub
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

    /// Sends an Error the peer can show, then closes.
    private static func refuse(_ channel: Channel, _ text: String) {
        let frame = channel.allocator.buffer(bytes: ServerMessage.error(text).framed())
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
    }
}
