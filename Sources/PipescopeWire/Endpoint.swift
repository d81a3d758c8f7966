/// Where an inspector connects: a Unix socket path, or a TCP address (`tcp://host:port`).
public enum Endpoint: Equatable, Sendable, CustomStringConvertible {
    case unix(String)
    case tcp(host: String, port: Int)

    /// Reads a user's target: `tcp://host:port`, a pid, or a socket path.
    public static func parse(_ target: String) throws -> Endpoint {
        guard target.hasPrefix("tcp://") else { return .unix(SocketLocation.resolve(target: target)) }
        return try parseAddress(String(target.dropFirst(6)), what: "tcp://host:port")
    }

    /// `host:port` or `[v6]:port`, as in PIPESCOPE_LISTEN.
    public static func parseAddress(_ text: String, what: String) throws -> Endpoint {
        var host = Substring(text)
        var portText: Substring = ""
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            portText = host[host.index(after: close)...].drop { $0 == ":" }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, let port = Int(portText), (1...65_535).contains(port) else {
            throw EndpointError(text: text, expected: what)
        }
        return .tcp(host: String(host), port: port)
    }

    /// Loopback addresses: reachable only from this machine.
    public var isLoopback: Bool {
        switch self {
        case .unix: return true
        case .tcp(let host, _): return host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }

    public var description: String {
        switch self {
        case .unix(let path): return path
        case .tcp(let host, let port): return host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        }
    }
}

public struct EndpointError: Error, CustomStringConvertible {
    public var text: String
    public var expected: String
    public var description: String { "\"\(text)\" is not an address: expected \(expected), for example 127.0.0.1:4000" }
}
