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
    static func open(path: String) -> InspectorSession {
        do {
            let connection = try ProbeConnection.connect(path: path)
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
        let graph = self.graph
        var lines = ["\(welcome.processName) (pid \(welcome.pid)): \(graph.nodes.count) stages, \(graph.dropped) events dropped"]
        for row in graph.rows(collapsed: []) {
            guard let n = graph[row.id] else { continue }
            var line = String(repeating: "  ", count: row.depth + 1) + "\(n.operatorName)"
            if n.parent == nil { line += " -> \(n.subscriber)" }
            line += "  \(n.status.rawValue)  demand \(n.requested)  values \(n.values)"
            if let v = n.lastValue { line += "  last \(v)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
