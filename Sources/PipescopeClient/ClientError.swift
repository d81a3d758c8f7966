import PipescopeWire

/// Why the inspector could not attach, in words a person can act on.
public enum ClientError: Error, CustomStringConvertible, Equatable {
    case noProbe(path: String)
    case notListening(path: String)
    case refused(path: String, message: String)
    case timedOut(path: String, waitingFor: String)
    case connectionFailed(path: String, reason: String)
    case permissionDenied(path: String)

    public var description: String {
        switch self {
        case .noProbe(let path):
            return "no Pipescope probe at \(path) — is the program running and did it call "
                + "Pipescope.start()? Give `pipescope attach` the program's pid or its socket path."
        case .notListening(let path):
            return "nothing is listening at \(path) — the program that made it has probably exited. "
                + "Start the program again, then attach."
        case .refused(let path, let message):
            return "the probe at \(path) refused the connection: \(message)"
        case .timedOut(let path, let what):
            return "the probe at \(path) did not send \(what) in time — is the program stopped "
                + "(for example in a debugger) or is that socket something else?"
        case .connectionFailed(let path, let reason):
            return "could not connect to \(path): \(reason)"
        case .permissionDenied(let path):
            return "permission denied for \(path): the program belongs to another user, and Pipescope only "
                + "lets the same user attach. Run pipescope as that user."
        }
    }
}
