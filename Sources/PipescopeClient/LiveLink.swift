import Foundation
import PipescopeModel

/// The inspector's link to a live program: what arrived since the last turn, commands
/// out, and attaching again once a second after the program went away: to the same
/// socket path or TCP address (a program restarted there), and, while waiting for it
/// (`attach --wait`, or `r` once it ended), to the next program of its name.
///
/// ```swift
/// let link = LiveLink(session: try ProbeSession.attach(path: path), reconnects: true)
/// while running {
///     for message in link.poll() { state.reduce(message) }   // "reconnected to …" after a restart
///     for effect in effects { link.perform(effect) }
/// }
/// link.close()
/// ```
public final class LiveLink {
    private var connection: ProbeConnection?
    private var session: ProbeSession
    private var lastAttempt = Date.distantPast
    /// Reconnecting makes sense when the address outlives the program (not for the demo).
    private let reconnects: Bool
    /// The program's name, while a new run of it is awaited.
    private var waitingFor: String?

    /// `reconnects`: attach again to the same address after the program went away (not for
    /// a program that cannot come back there, such as the demo's child); `waitingFor`: the
    /// name of a program whose next run to attach to.
    public init(session: ProbeSession, reconnects: Bool, waitingFor: String? = nil) {
        connection = session.connection
        self.session = session
        self.reconnects = reconnects
        self.waitingFor = waitingFor
    }

    /// What arrived since the last call; after a disconnection, an attempt to attach again
    /// at most once a second, whose messages start with the new run's opening ones.
    public func poll() -> [Message] {
        guard let connection else { return reconnect() }
        let messages = connection.poll()
        if case .disconnected? = messages.last {
            connection.close()
            self.connection = nil
            lastAttempt = Date()
        }
        return messages
    }

    /// Carries out an effect in the program (a command over the connection, if any), or
    /// starts waiting for the program's next run.
    public func perform(_ effect: Effect) {
        if case .waitForRestart(let name) = effect {
            waitingFor = name
            lastAttempt = .distantPast
            return
        }
        connection?.perform(effect)
    }

    public func close() {
        connection?.close()
        connection = nil
    }

    private func reconnect() -> [Message] {
        guard Date().timeIntervalSince(lastAttempt) >= 1 else { return [] }
        lastAttempt = Date()
        if reconnects, let fresh = try? session.reattach(timeout: 2) { return adopt(fresh) }
        if let name = waitingFor, let fresh = nextRun(of: name) { return adopt(fresh) }
        return []
    }

    /// The newest running program named `name` other than the one that ended.
    private func nextRun(of name: String) -> ProbeSession? {
        let ended = session.welcome.pid
        let candidates = ProbeDirectory.scan().entries
            .filter { $0.processName == name && $0.pid != ended }
            .sorted { $0.startTimeNanos > $1.startTimeNanos }
        for entry in candidates {
            if let fresh = try? ProbeSession.attach(path: entry.path, readOnly: session.readOnly, token: session.token,
                                                    timeout: 2) {
                return fresh
            }
        }
        return nil
    }

    private func adopt(_ fresh: ProbeSession) -> [Message] {
        let sameProcess = fresh.welcome.pid == session.welcome.pid
        session = fresh
        connection = fresh.connection
        let who = "\(fresh.welcome.processName) (pid \(fresh.welcome.pid))"
        let text = sameProcess ? "reconnected to \(who)"
            : "attached to a new run: \(who); the run that ended stays in history (g at this run's start goes back to it)"
        return fresh.openingMessages + [.acknowledged(ok: true, text: text)]
    }
}
