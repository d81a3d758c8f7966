import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeWire

/// An attached probe: the connection, plus what the handshake brought (who the program
/// is, and its graph). Attaching, and attaching again to the same address after the
/// program went away, happen here, so a caller never reads the handshake itself.
///
/// ```swift
/// let session = try ProbeSession.attach(target: "4242")   // a pid, a socket path, or tcp://host:port
/// defer { session.connection.close() }
/// var state = AppState()
/// for message in session.openingMessages { state.reduce(message) }
/// ```
public struct ProbeSession {
    /// The open connection, past its handshake.
    public let connection: ProbeConnection
    /// Who the program is.
    public let welcome: ProbeWelcome
    /// The program's graph when the inspector attached.
    public let snapshot: GraphSnapshot
    /// Where the probe was reached: a reconnection goes there again.
    public let endpoint: Endpoint
    /// Whether this inspector asked to look only (the probe refuses cancel and pause).
    public let readOnly: Bool
    /// The token given for a TCP address, sent again on a reconnection.
    public let token: String?

    /// Attaches to `target`: a pid, a socket path, `tcp://host:port`, or a running
    /// program's name (``endpoint(of:directory:)``). Throws an
    /// ``EndpointError`` for an address that cannot be read, and a ``ClientError`` that
    /// says what to do when the probe cannot be reached, refuses, or is silent.
    public static func attach(target: String, readOnly: Bool = false, token: String? = nil,
                              timeout: Double = 5) throws -> ProbeSession {
        try attach(to: endpoint(of: target), readOnly: readOnly, token: token, timeout: timeout)
    }

    /// Where `target` is: `tcp://host:port`, a pid (a number from 1 up), a socket path
    /// (anything with a `/`), or the name of a running program with Pipescope (the newest
    /// of that name). Throws ``ClientError/notAPid(_:)`` for 0 or a negative number and
    /// ``ClientError/noProgramNamed(_:running:)`` for a name no running program has.
    public static func endpoint(of target: String, directory: String = SocketLocation.directory()) throws -> Endpoint {
        if let number = Int(target), number <= 0 { throw ClientError.notAPid(target) }
        guard Int(target) == nil, !target.contains("/"), !target.hasPrefix("tcp://"), !target.isEmpty,
              !FileManager.default.fileExists(atPath: target) else {  // a socket in the current directory
            return try Endpoint.parse(target)
        }
        // Looked up only: stale sockets are `list`'s to remove, and it says so.
        let scan = ProbeDirectory.scan(directory: directory, removeStale: false)
        let named = scan.entries.filter { $0.processName == target }
        guard let newest = named.max(by: { $0.startTimeNanos < $1.startTimeNanos }) else {
            throw ClientError.noProgramNamed(target, running: scan.entries.map { "\($0.processName) (pid \($0.pid))" })
        }
        return .unix(newest.path)
    }

    /// Attaches to the Unix socket at `path`.
    public static func attach(path: String, readOnly: Bool = false, token: String? = nil,
                              timeout: Double = 5) throws -> ProbeSession {
        try attach(to: .unix(path), readOnly: readOnly, token: token, timeout: timeout)
    }

    /// Connects, says Hello, and waits at most `timeout` seconds for the Welcome and the
    /// first Snapshot. The connection is closed again when the handshake fails.
    public static func attach(to endpoint: Endpoint, readOnly: Bool = false, token: String? = nil,
                              timeout: Double = 5) throws -> ProbeSession {
        let connection = try ProbeConnection.connect(to: endpoint, readOnly: readOnly, token: token)
        do {
            let (welcome, snapshot) = try connection.handshake(timeout: timeout)
            return ProbeSession(connection: connection, welcome: ProbeWelcome(welcome), snapshot: snapshot,
                                endpoint: endpoint, readOnly: readOnly, token: token)
        } catch {
            connection.close()
            throw error
        }
    }

    /// A new session at the same address, with the same token and read-only choice: the
    /// program restarted on the same socket path or TCP address. Throws as
    /// ``attach(to:readOnly:token:timeout:)`` does.
    public func reattach(timeout: Double = 2) throws -> ProbeSession {
        try Self.attach(to: endpoint, readOnly: readOnly, token: token, timeout: timeout)
    }

    /// The graph the snapshot describes.
    public var graph: Graph {
        var graph = Graph()
        graph.load(snapshot)
        return graph
    }

    /// What the model starts from: who the program is, and its graph.
    public var openingMessages: [Message] {
        [welcome.attached, .snapshot(snapshot)]
    }
}

extension ProbeSession {
    /// This session with a snapshot whose locations have settled: while the probe says
    /// stages still wait for their locations (``GraphSnapshot/locationsPending``, in a
    /// program's first moments), asks for a fresh snapshot every `interval` seconds, for
    /// at most `timeout` seconds. The result's snapshot may still say they are pending
    /// (a slow machine, a large binary): a caller says so. Batches that arrive meanwhile
    /// are left out (each snapshot includes them); a probe that never says "pending" (an
    /// older one) is not asked at all.
    ///
    /// ```swift
    /// let session = try ProbeSession.attach(target: "4242").settlingLocations(timeout: 2)
    /// if session.snapshot.locationsPending { print("some locations are still being resolved") }
    /// ```
    public func settlingLocations(timeout: Double = 2, interval: Double = 0.1) -> ProbeSession {
        var snapshot = self.snapshot
        let deadline = Date().addingTimeInterval(timeout)
        asking: while snapshot.locationsPending {
            // A pause between requests: the symbol thread works meanwhile.
            let ask = Date().addingTimeInterval(interval)
            while Date() < ask {
                guard let message = connection.next(timeout: ask.timeIntervalSinceNow) else { break }
                if case .disconnected = message { break asking }
            }
            guard Date() < deadline else { break }
            var command = WireCommand()
            command.kind = .commandSnapshot
            connection.send(command)
            waiting: while true {
                guard let message = connection.next(timeout: max(0, deadline.timeIntervalSinceNow)) else { break asking }
                switch message {
                case .snapshot(let fresh):
                    snapshot = fresh
                    break waiting
                case .disconnected:
                    break asking
                default:
                    continue
                }
            }
        }
        return ProbeSession(connection: connection, welcome: welcome, snapshot: snapshot, endpoint: endpoint,
                            readOnly: readOnly, token: token)
    }
}
