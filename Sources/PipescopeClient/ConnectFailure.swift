import Foundation
import NIOCore
import NIOPosix

/// How a connection to a TCP address failed, each said in a plain sentence that names
/// the address and what to check.
public enum ConnectFailure: Equatable, Sendable {
    /// Nothing listens on the port (ECONNREFUSED).
    case refused
    /// No answer before the connect timeout.
    case timedOut(seconds: Int)
    /// No route to the host (EHOSTUNREACH).
    case hostUnreachable
    /// No route to its network (ENETUNREACH).
    case networkUnreachable
    /// The name does not resolve.
    case unknownHost
    /// Anything else, as the system says it (strerror, not a library's debug text).
    case other(String)

    /// The sentence for `host:port`; PIPESCOPE_LISTEN is how a program serves TCP.
    func sentence(host: String, port: Int) -> String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch self {
        case .refused:
            return "connection refused at \(address) — is the program running, and listening there "
                + "(PIPESCOPE_LISTEN=\(address) in its environment)?"
        case .timedOut(let seconds):
            return "no answer from \(address) within \(seconds) s — is the address right, and is no firewall "
                + "dropping the connection? The program listens where its PIPESCOPE_LISTEN=host:port says."
        case .hostUnreachable:
            return "host \(host) is unreachable (no route to it) — check the address and that the machine is up."
        case .networkUnreachable:
            return "the network of \(host) is unreachable from this machine — check the address and the network "
                + "(an ssh tunnel to a loopback address is the usual way to reach another machine)."
        case .unknownHost:
            return "cannot find the host \"\(host)\" (the name does not resolve) — check its spelling, or give an IP address."
        case .other(let why):
            return "could not connect to \(address): \(why)."
        }
    }
}

extension ConnectFailure {
    /// What NIO's connect error means: its errno, a connect timeout, or a name that did
    /// not resolve (NIO's ``NIOConnectionError`` holds one error per address it tried).
    init(_ error: Error) {
        if let connection = error as? NIOConnectionError {
            if let first = connection.connectionErrors.first {
                // Every address tried failed; the first says what a person can check.
                self.init(first.error)
            } else {
                self = .unknownHost  // a DNS error, or no address to try
            }
            return
        }
        if case ChannelError.connectTimeout(let amount)? = error as? ChannelError {
            self = .timedOut(seconds: Int(amount.nanoseconds / 1_000_000_000))
            return
        }
        switch (error as? IOError)?.errnoCode {
        case ECONNREFUSED?: self = .refused
        case ETIMEDOUT?: self = .timedOut(seconds: ProbeConnection.connectTimeoutSeconds)
        case EHOSTUNREACH?: self = .hostUnreachable
        case ENETUNREACH?: self = .networkUnreachable
        case let code?: self = .other(String(cString: strerror(code)))
        case nil: self = .other("\(error)")
        }
    }
}
