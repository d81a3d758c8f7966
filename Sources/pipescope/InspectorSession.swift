import Foundation
import PipescopeClient

/// Attaching from the command line: a ``ProbeSession`` past its handshake, or an exit
/// with a message that says what to do, its advice naming `command` (the one the person
/// ran). The token for TCP comes from `token` or else PIPESCOPE_TOKEN.
enum InspectorSession {
    /// Attaches to the Unix socket at `path`.
    static func open(path: String, command: String, readOnly: Bool = false, token: String? = nil) -> ProbeSession {
        let token = token ?? environmentToken
        return attach(command) { try ProbeSession.attach(path: path, readOnly: readOnly, token: token) }
    }

    /// `target` is a pid, a socket path, or tcp://host:port.
    static func open(target: String, command: String, readOnly: Bool = false, token: String? = nil) -> ProbeSession {
        let token = token ?? environmentToken
        return attach(command) { try ProbeSession.attach(target: target, readOnly: readOnly, token: token) }
    }

    private static var environmentToken: String? { ProcessInfo.processInfo.environment["PIPESCOPE_TOKEN"] }

    private static func attach(_ command: String, _ attach: () throws -> ProbeSession) -> ProbeSession {
        do {
            return try attach()
        } catch let error as ClientError {
            fail(error.message(command: command))
        } catch {
            fail("\(error)")
        }
    }
}
