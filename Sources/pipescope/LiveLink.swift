import Foundation
import PipescopeClient
import PipescopeModel
import PipescopeWire

/// The inspector's link to a live program: what arrived since the last turn, commands
/// out, and reconnection once a second after the program went away (a program restarted
/// on the same socket path or TCP address is picked up again).
final class LiveLink {
    private var connection: ProbeConnection?
    private let endpoint: Endpoint
    private let readOnly: Bool
    private let token: String?
    private var lastAttempt = Date.distantPast
    /// Reconnecting makes sense when the address outlives the program (not for the demo).
    private let reconnects: Bool

    init(session: InspectorSession, endpoint: Endpoint, readOnly: Bool, token: String?, reconnects: Bool) {
        connection = session.connection
        self.endpoint = endpoint
        self.readOnly = readOnly
        self.token = token
        self.reconnects = reconnects
    }

    func poll() -> [Message] {
        guard let connection else { return reconnect() }
        let messages = connection.poll()
        if case .disconnected? = messages.last {
            connection.close()
            self.connection = nil
            lastAttempt = Date()
        }
        return messages
    }

    /// Carries out an effect in the program (a command over the connection, if any).
    func perform(_ effect: Effect) {
        guard let command = WireCommand(effect) else { return }
        connection?.send(command)
    }

    func close() {
        connection?.close()
        connection = nil
    }

    private func reconnect() -> [Message] {
        guard reconnects, Date().timeIntervalSince(lastAttempt) >= 1 else { return [] }
        lastAttempt = Date()
        guard let fresh = try? ProbeConnection.connect(to: endpoint, readOnly: readOnly, token: token) else { return [] }
        guard let (welcome, snapshot) = try? fresh.handshake(timeout: 2) else {
            fresh.close()
            return []
        }
        connection = fresh
        return [.attached(process: welcome.processName, pid: welcome.pid, readOnly: welcome.readonly), .snapshot(snapshot),
                .acknowledged(ok: true, text: "reconnected to \(welcome.processName) (pid \(welcome.pid))")]
    }
}
