import Foundation

/// Where a probe serves its Unix domain socket, and how an inspector finds it.
///
/// `$PIPESCOPE_SOCKET` if set; else `$XDG_RUNTIME_DIR/pipescope/<pid>.sock`; else
/// `/tmp/pipescope-<uid>/<pid>.sock`. The directory is private to the user (0700) and
/// the socket itself is 0600.
public enum SocketLocation {
    /// The directory where probes of this user put their sockets.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/pipescope"
        }
        return "/tmp/pipescope-\(getuid())"
    }

    /// The default socket path of the process `pid`.
    public static func path(pid: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        directory(environment: environment) + "/\(pid).sock"
    }

    /// The socket this process should serve: the override, or the default for its pid.
    public static func ownPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["PIPESCOPE_SOCKET"], !explicit.isEmpty { return explicit }
        return path(pid: getpid(), environment: environment)
    }

    /// Reads a user's target: a number is a pid, anything else a socket path.
    public static func resolve(target: String) -> String {
        if let pid = Int32(target), pid > 0 { return path(pid: pid) }
        return target
    }

    /// Longest path a Unix domain socket address holds on Linux, without the final NUL.
    public static let maxPathLength = 107

    /// Whether something accepts connections on the Unix socket at `path`. A socket file
    /// can outlive its program (killed by a signal), and a new process can get the dead
    /// one's pid, so that the file is there before the new program serves it: this, not
    /// the file's existence, says a program is listening.
    public static func answers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(SocketLocation.maxPathLength))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
