import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PipescopeModel

/// A small HTTP/1.1 client for Prometheus' query API, on an event loop of its own: what
/// `pipescope top --prometheus` reads the fleet with. Calls block their caller (the
/// reader's background thread, never the UI's) for at most ``timeout``.
///
/// ```swift
/// let client = try PrometheusClient(url: "http://127.0.0.1:9090")
/// defer { client.shutdown() }
/// let vector = try client.query("sum by (instance) (pipescope_pipelines)")
/// ```
public final class PrometheusClient: Sendable {
    /// Why a read failed, said so a person knows what to do next.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case badURL(String, why: String)
        case unreachable(url: String, reason: String)
        case timedOut(url: String, seconds: Int)
        case httpStatus(url: String, status: Int, body: String)
        case answer(url: String, PrometheusVector.Problem)

        public var description: String {
            switch self {
            case .badURL(let url, let why):
                return "\(url) is not a Prometheus URL: \(why). Give its address as http://HOST:PORT (Prometheus listens on 9090 unless told otherwise)."
            case .unreachable(let url, let reason):
                return "cannot reach Prometheus at \(url): \(reason). Is it running, and is that its address? "
                    + "(It listens on 9090 unless started with --web.listen-address.)"
            case .timedOut(let url, let seconds):
                return "Prometheus at \(url) did not answer within \(seconds) s; still trying."
            case .httpStatus(let url, let status, let body):
                let said = body.isEmpty ? "" : " (\(body))"
                return "\(url) answered HTTP \(status)\(said): is that Prometheus' own address, with its path prefix if it has one?"
            case .answer(let url, let problem):
                return "\(url): \(problem)"
            }
        }
    }

    public let url: String
    let host: String
    let port: Int
    /// The path before `/api/v1/…`: a Prometheus served under a prefix (`--web.route-prefix`).
    let prefix: String
    public let timeout: TimeAmount
    private let group: MultiThreadedEventLoopGroup

    /// Reads `url` (`http://host[:port][/prefix]`; no scheme means http). Throws
    /// ``Failure/badURL(_:why:)`` for anything else.
    public init(url: String, timeout: TimeAmount = .seconds(5)) throws(Failure) {
        let text = url.contains("://") ? url : "http://" + url
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased() else {
            throw .badURL(url, why: "it does not read as a URL")
        }
        guard scheme == "http" else {
            throw .badURL(url, why: scheme == "https" ? "https is not supported (put Prometheus' plain http address, or a local tunnel to it)"
                                                      : "the scheme is \(scheme), not http")
        }
        guard let host = parts.host, !host.isEmpty else { throw .badURL(url, why: "it names no host") }
        guard parts.query == nil else { throw .badURL(url, why: "it has a query (?…); give the server's address only") }
        self.url = url
        self.host = host
        self.port = parts.port ?? 9090
        self.prefix = parts.path.hasSuffix("/") ? String(parts.path.dropLast()) : parts.path
        self.timeout = timeout
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Stops the client's event loop; call once, when done.
    public func shutdown() {
        try? group.syncShutdownGracefully()
    }

    /// One instant query: `GET PREFIX/api/v1/query?query=PROMQL`, read as a vector.
    public func query(_ promQL: String) throws(Failure) -> PrometheusVector {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = promQL.addingPercentEncoding(withAllowedCharacters: allowed) ?? promQL
        let (status, body) = try get(prefix + "/api/v1/query?query=" + encoded)
        do {
            // Prometheus answers a bad query with 400 and its error JSON: read it as such.
            return try PrometheusVector.parse(body)
        } catch {
            if status != 200 {
                let start = String(decoding: body.prefix(80), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                throw .httpStatus(url: url, status: status, body: start)
            }
            throw .answer(url: url, error)
        }
    }

    /// A GET of `path` on the server: its status and body.
    func get(_ path: String) throws(Failure) -> (status: Int, body: Data) {
        let loop = group.next()
        let promise = loop.makePromise(of: (Int, Data).self)
        let host = host, port = port
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                }
            }
        let connect = bootstrap.connect(host: host, port: port)
        connect.whenFailure { promise.fail($0) }
        connect.whenSuccess { channel in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
            head.headers.add(name: "Host", value: "\(host):\(port)")
            head.headers.add(name: "Accept", value: "application/json")
            head.headers.add(name: "Connection", value: "close")
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            // Whatever happens, the connection does not outlive the answer or the timeout.
            let deadline = channel.eventLoop.scheduleTask(in: self.timeout) {
                promise.fail(ChannelError.connectTimeout(self.timeout))
            }
            promise.futureResult.whenComplete { _ in
                deadline.cancel()
                channel.close(promise: nil)
            }
        }
        do {
            let (status, body) = try promise.futureResult.wait()
            return (status, body)
        } catch ChannelError.connectTimeout {
            throw .timedOut(url: url, seconds: Int(timeout.nanoseconds / 1_000_000_000))
        } catch let error as IOError {
            throw .unreachable(url: url, reason: String(cString: strerror(error.errnoCode)).lowercased())
        } catch let error as NIOConnectionError {
            // One error per address tried (IPv4, IPv6): the first says it.
            let first = error.connectionErrors.first?.error
            if let io = first as? IOError {
                throw .unreachable(url: url, reason: String(cString: strerror(io.errnoCode)).lowercased())
            }
            throw .unreachable(url: url, reason: Self.plain(first.map { "\($0)" } ?? "\(error)"))
        } catch {
            throw .unreachable(url: url, reason: Self.plain("\(error)"))
        }
    }

    /// "connection reset (error set): Connection refused (errno: 111)" as "connection refused".
    static func plain(_ text: String) -> String {
        if let range = text.range(of: #"[A-Z][a-z ]+ \(errno: \d+\)"#, options: .regularExpression) {
            return String(text[range].prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces).lowercased()
        }
        return text
    }
}

/// Gathers one HTTP response and completes the promise with its status and body.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let promise: EventLoopPromise<(Int, Data)>
    var status = 0
    var body = Data()

    init(promise: EventLoopPromise<(Int, Data)>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body(var buffer): body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end: promise.succeed((status, body))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.inputClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}
