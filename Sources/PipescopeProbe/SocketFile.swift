import Foundation
import PipescopeTap
import PipescopeWire
import Synchronization

/// Prepares the place where the probe's socket will be bound.
enum SocketFile {
    enum Failure: Error, CustomStringConvertible {
        case pathTooLong(String)
        case directory(String, String)
        case inUse(String)

        var description: String {
            switch self {
            case .pathTooLong(let p):
                return "socket path \(p) is longer than \(SocketLocation.maxPathLength) bytes; "
                    + "set PIPESCOPE_SOCKET to a shorter path"
            case .directory(let d, let why):
                return "cannot use \(d) for the socket: \(why); set PIPESCOPE_SOCKET to a path in a private directory"
            case .inUse(let p):
                return "\(p) is already served by another running program; set PIPESCOPE_SOCKET to another path"
            }
        }
    }

    /// Makes the parent directory (0700, owned by this user) and removes a stale socket
    /// left by a dead process. A socket that still answers is left alone.
    static func prepare(_ path: String) throws {
        guard path.utf8.count <= SocketLocation.maxPathLength else { throw Failure.pathTooLong(path) }
        let dir = (path as NSString).deletingLastPathComponent
        if mkdir(dir, 0o700) != 0 && errno != EEXIST {
            throw Failure.directory(dir, String(cString: strerror(errno)))
        }
        var info = stat()
        guard stat(dir, &info) == 0 else { throw Failure.directory(dir, String(cString: strerror(errno))) }
        guard info.st_uid == getuid() else { throw Failure.directory(dir, "it belongs to another user") }
        if info.st_mode & 0o077 != 0, dir.hasSuffix("/pipescope") || dir.contains("/pipescope-") {
            chmod(dir, 0o700)
        }
        if access(path, F_OK) == 0 {
            if SocketLocation.answers(path) { throw Failure.inUse(path) }
            unlink(path)
        }
    }

    /// Removes the socket when the program exits normally, and when SIGTERM ends it and
    /// the program has no SIGTERM handler of its own (``TerminateCleanup``). (A program
    /// killed by SIGKILL or a crash leaves it behind; `pipescope list` and a later probe
    /// clean it up.)
    static func removeAtExit(_ path: String) {
        pathToRemove.withLockedValue { $0 = path }
        if !registered.exchange(true, ordering: .relaxed) {
            atexit { SocketFile.pathToRemove.withLockedValue { if let p = $0 { unlink(p) } } }
        }
        TerminateCleanup.install(removing: path)
    }

    /// The socket was removed (Pipescope stopped): nothing is left to remove on exit.
    static func removed(_ path: String) {
        pathToRemove.withLockedValue { if $0 == path { $0 = nil } }
        TerminateCleanup.forget(path)
    }

    private static let pathToRemove = LockedBox<String?>(nil)
    private static let registered = Atomic<Bool>(false)
}
