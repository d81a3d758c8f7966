import PipescopeWire

/// Why the inspector could not attach, in words a person can act on.
///
/// ``message(command:)`` names the command the person ran in its advice ("give
/// `pipescope snapshot` the program's pid"); ``description`` gives the same advice
/// without a command's name.
///
/// ```swift
/// do { session = try ProbeSession.attach(target: "4242") }
/// catch let error as ClientError { print("pipescope: " + error.message(command: "pipescope snapshot")) }
/// ```
public enum ClientError: Error, CustomStringConvertible, Equatable {
    /// No file at the socket path.
    case noProbe(path: String)
    /// A socket file that nobody accepts connections on: its program is gone.
    case notListening(path: String)
    /// Something at the path that is not a socket: `what` is "a directory", "a regular file", …
    case notASocket(path: String, what: String)
    /// The file is a Pipescope recording, which `pipescope replay` opens.
    case recordingNotSocket(path: String)
    /// A TCP address that could not be reached (``ConnectFailure`` says how).
    case unreachable(host: String, port: Int, why: ConnectFailure)
    case refused(path: String, message: String)
    case timedOut(path: String, waitingFor: String)
    case connectionFailed(path: String, reason: String)
    case permissionDenied(path: String)
    /// A number that cannot be a pid (0, negative).
    case notAPid(String)
    /// A name (no `/`, not a number) that no running program with Pipescope has; `running`
    /// names those that are ("app (pid 42)").
    case noProgramNamed(String, running: [String])

    public var description: String { message(command: nil) }

    /// The message, its advice naming `command` (for example "pipescope snapshot") when
    /// given.
    public func message(command: String?) -> String {
        let give = command.map { "Give `\($0)` the program's pid" } ?? "Give the program's pid"
        let targets = "\(give), name or socket path (`pipescope list` shows them), or tcp://host:port"
        switch self {
        case .noProbe(let path):
            return "no Pipescope probe at \(path) — is the program running and did it call "
                + "Pipescope.start()? \(targets)."
        case .notListening(let path):
            return "nothing is listening at \(path) — the program that made it has probably exited. "
                + "Start the program again, then attach."
        case .notASocket(let path, let what):
            return "\(path) is \(what), not a program's socket. \(targets)."
        case .recordingNotSocket(let path):
            return "\(path) is a Pipescope recording, not a program's socket: open it with `pipescope replay \(path)`."
        case .unreachable(let host, let port, let why):
            return why.sentence(host: host, port: port)
        case .refused(let path, let message):
            return "the probe at \(path) refused the connection: \(message)"
        case .timedOut(let path, let what):
            return "the probe at \(path) did not send \(what) in time — is the program stopped "
                + "(for example in a debugger) or is that socket something else?"
        case .connectionFailed(let path, let reason):
            return "could not connect to \(path): \(reason)"
        case .notAPid(let target):
            return "\(target) is not a pid (a pid is a number from 1 up). \(targets)."
        case .noProgramNamed(let name, let running):
            let now = running.isEmpty ? "none is running" : "running now: " + running.joined(separator: ", ")
            return "no running program named \(name) has Pipescope (\(now)). \(targets)."
        case .permissionDenied(let path):
            return "permission denied for \(path): the program belongs to another user, and Pipescope only "
                + "lets the same user attach. Run pipescope as that user."
        }
    }
}
