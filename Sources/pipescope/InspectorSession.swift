import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeWire

/// An attached probe: the connection plus what the handshake brought.
struct InspectorSession {
    let connection: ProbeConnection
    let welcome: WireWelcome
    let snapshot: WireSnapshot

    /// Connects and completes the handshake, or exits with a message that says what to do.
    static func open(path: String, readOnly: Bool = false) -> InspectorSession {
        do {
            let connection = try ProbeConnection.connect(path: path, readOnly: readOnly)
            do {
                let (welcome, snapshot) = try connection.handshake()
                return InspectorSession(connection: connection, welcome: welcome, snapshot: snapshot)
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

    func snapshotJSON() -> String { SnapshotJSON.render(graph) }

    /// An indented tree, one stage per line, for people and shell pipelines.
    func snapshotText() -> String {
        SnapshotText.render(graph, title: "\(welcome.processName) (pid \(welcome.pid))")
    }
}
