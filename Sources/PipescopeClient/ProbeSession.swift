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

    /// Attaches to `target`: a pid, a socket path, or `tcp://host:port`. Throws an
    /// ``EndpointError`` for an address that cannot be read, and a ``ClientError`` that
    /// says what to do when the probe cannot be reached, refuses, or is silent.
    public static func attach(target: String, readOnly: Bool = false, token: String? = nil,
                              timeout: Double = 5) throws -> ProbeSession {
        try attach(to: Endpoint.parse(target), readOnly: readOnly, token: token, timeout: timeout)
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
