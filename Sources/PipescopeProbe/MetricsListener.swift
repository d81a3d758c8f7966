import NIOCore
import NIOHTTP1
import NIOPosix
import PipescopeWire

/// `PIPESCOPE_METRICS_LISTEN=host:port`: `GET /metrics` answered with the text `render`
/// gives (Prometheus' text format, made by PipescopeMetrics), on the probe's own event
/// loop. As with `PIPESCOPE_LISTEN`, an address other than loopback needs
/// `PIPESCOPE_TOKEN`, and then every scrape must present it (`Authorization: Bearer
/// TOKEN`, Prometheus' `authorization: { credentials: TOKEN }`).
///
/// ```
/// PIPESCOPE_METRICS_LISTEN=127.0.0.1:9464 ./app &
/// curl -s http://127.0.0.1:9464/metrics
/// ```
enum MetricsListener {
    static let variable = "PIPESCOPE_METRICS_LISTEN"

    /// Binds the listener on `group`, or throws why not (a refused or malformed address, a
    /// port in use); nil when the environment asks for none.
    static func listen(group: EventLoopGroup, environment: [String: String],
                       render: @escaping @Sendable () -> [UInt8]) throws -> Channel? {
        guard let listen = environment[variable], !listen.isEmpty else { return nil }
        let token = environment["PIPESCOPE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let endpoint = try Endpoint.parseAddress(listen, what: "\(variable)=host:port")
        guard case .tcp(let host, let port) = endpoint else { return nil }
        guard endpoint.isLoopback || token != nil else { throw Refusal(address: listen) }
        return try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ScrapeHandler(token: token, render: render))
                }
            }
            .bind(host: host, port: port).wait()
    }

    struct Refusal: Error, CustomStringConvertible {
        var address: String
        var description: String {
            "\(MetricsListener.variable)=\(address) is reachable from other machines, so it needs PIPESCOPE_TOKEN; "
                + "set a token (scrapes then send it as a bearer token), or listen on 127.0.0.1"
        }
    }
}

/// One scrape connection: answers each request, then closes.
private final class ScrapeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let token: String?
    let render: @Sendable () -> [UInt8]
    private var head: HTTPRequestHead?

    init(token: String?, render: @escaping @Sendable () -> [UInt8]) {
        self.token = token
        self.render = render
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let (status, body) = answer(head)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: status == .ok ? "text/plain; version=0.0.4; charset=utf-8"
                                                                     : "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(body.count))
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                          promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func answer(_ head: HTTPRequestHead) -> (HTTPResponseStatus, [UInt8]) {
        if let token, head.headers["Authorization"].first != "Bearer \(token)" {
            return (.unauthorized, Array("this program's metrics need PIPESCOPE_TOKEN as a bearer token\n".utf8))
        }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard head.method == .GET, path == "/metrics" else {
            return (.notFound, Array("Pipescope serves GET /metrics only\n".utf8))
        }
        return (.ok, render())
    }
}
