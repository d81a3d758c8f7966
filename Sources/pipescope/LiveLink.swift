import Foundation
import PipescopeClient
import PipescopeModel

/// The inspector's link to a live program: what arrived since the last turn, commands
/// out, and reconnection once a second after the program went away (a program restarted
/// on the same socket path or TCP address is picked up again).
final class LiveLink {
    private var connection: ProbeConnection?
    private let session: ProbeSession
    private var lastAttempt = Date.distantPast
    /// Reconnecting makes sense when the address outlives the program (not for the demo).
    private let reconnects: Bool

    init(session: ProbeSession, reconnects: Bool) {
        connection = session.connection
        self.session = session
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
        connection?.perform(effect)
    }

    func close() {
        connection?.close()
        connection = nil
    }

    private func reconnect() -> [Message] {
        guard reconnects, Date().timeIntervalSince(lastAttempt) >= 1 else { return [] }
        lastAttempt = Date()
        guard let fresh = try? session.reattach(timeout: 2) else { return [] }
        connection = fresh.connection
        return fresh.openingMessages
            + [.acknowledged(ok: true, text: "reconnected to \(fresh.welcome.processName) (pid \(fresh.welcome.pid))")]
    }
}
