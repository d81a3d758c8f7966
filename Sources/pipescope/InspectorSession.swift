import Foundation
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeWire

/// An attached probe: the connection plus what the handshake brought.
struct InspectorSession {
    let connection: ProbeConnection
    let welcome: WireWelcome
    let snapshot: GraphSnapshot
    let endpoint: Endpoint
    let token: String?

    /// Connects and completes the handshake, or exits with a message that says what to do.
    static func open(path: String, readOnly: Bool = false, token: String? = nil) -> InspectorSession {
        open(endpoint: .unix(path), readOnly: readOnly, token: token)
    }

    /// `target` is a pid, a socket path, or tcp://host:port. The token for TCP comes from
    /// `token` or else PIPESCOPE_TOKEN.
    static func open(target: String, readOnly: Bool = false, token: String? = nil) -> InspectorSession {
        do {
            return open(endpoint: try Endpoint.parse(target), readOnly: readOnly, token: token)
        } catch {
            fail("\(error)")
        }
    }

    static func open(endpoint: Endpoint, readOnly: Bool = false, token: String? = nil) -> InspectorSession {
        let token = token ?? ProcessInfo.processInfo.environment["PIPESCOPE_TOKEN"]
        do {
            let connection = try ProbeConnection.connect(to: endpoint, readOnly: readOnly, token: token)
            do {
                let (welcome, snapshot) = try connection.handshake()
                return InspectorSession(connection: connection, welcome: welcome, snapshot: snapshot,
                                        endpoint: endpoint, token: token)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            fail("\(error)")
        }
    }

    var graph: Graph {
        var graph = Graph()
        graph.load(snapshot)
        return graph
    }

    /// What the model starts from: who the program is, and its graph.
    var openingMessages: [Message] {
        [.attached(process: welcome.processName, pid: welcome.pid, readOnly: welcome.readonly), .snapshot(snapshot)]
    }
}
