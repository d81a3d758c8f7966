import NIOCore
import PipescopeWire

/// One inspector connection: reads frames, checks the handshake, and reports a clear
/// error for anything it cannot accept before closing. Nothing a peer sends can reach
/// the program's pipelines; the worst it can do is be disconnected. ``Admission`` decides
/// whether the connection may stay at all, and whether its Hello makes it an inspector.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var decoder = FrameDecoder()
    private var greeted = false
    private var readOnly = false
    /// Refused (told why) and closing: anything more the peer sends is ignored.
    private var closing = false
    private var helloDeadline: Scheduled<Void>?
    private let hub: InspectorHub
    private let admission: Admission
    /// Required in Hello when set (TCP with PIPESCOPE_TOKEN).
    private let token: String?

    init(hub: InspectorHub, admission: Admission, token: String? = nil) {
        self.hub = hub
        self.admission = admission
        self.token = token
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        guard admission.connected(channel) else {  // refused: told why, and closing
            closing = true
            return
        }
        let admission = self.admission
        let timeout = admission.limits.helloTimeout
        helloDeadline = context.eventLoop.scheduleTask(in: timeout) {
            admission.refuse(channel, "no Hello within \(Self.describe(timeout)), so the program closed the connection; "
                + "attach with `pipescope attach`, which says Hello at once")
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let bytes = unwrapInboundIn(data)
        decoder.append(bytes.readableBytesView)
        do {
            while !closing, let payload = try decoder.next() {
                try handle(try ClientMessage.decode(payload: payload), context: context)
            }
        } catch {
            refuse(context, "\(error)")
        }
    }

    /// Tells the peer why, and closes.
    private func refuse(_ context: ChannelHandlerContext, _ text: String) {
        closing = true
        helloDeadline?.cancel()
        admission.refuse(context.channel, text)
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloDeadline?.cancel()
        admission.closed(context.channel)
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
                refuse(context, ProtocolVersion.mismatchMessage(
                    local: ProtocolVersion.current, remote: hello.protocolVersion))
                return
            }
            if let token, !Self.sameToken(hello.token, token) {
                refuse(context, hello.token.isEmpty
                    ? "this program requires a token: set PIPESCOPE_TOKEN to the program's token, or pass --token"
                    : "wrong token: check PIPESCOPE_TOKEN or --token against the program's PIPESCOPE_TOKEN")
                return
            }
            helloDeadline?.cancel()
            guard admission.greet(context.channel) else {  // full: told why, and closing
                closing = true
                return
            }
            greeted = true
            readOnly = hello.readonly
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

    /// "2 s", "500 ms".
    static func describe(_ time: TimeAmount) -> String {
        time.nanoseconds % 1_000_000_000 == 0 ? "\(time.nanoseconds / 1_000_000_000) s" : "\(time.nanoseconds / 1_000_000) ms"
    }
}
