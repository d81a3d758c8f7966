import Foundation
import PipescopeGraph
import PipescopeWire

/// The instrumented programs of this user: the sockets in the per-user directory.
///
/// A socket whose program is gone (its pid no longer exists, or nothing answers) is
/// stale; ``scan(removeStale:)`` deletes it, as a crashed program cannot.
public enum ProbeDirectory {
    /// One program found.
    public struct Entry: Sendable {
        public var path: String
        public var pid: Int32
        public var processName: String
        public var startTimeNanos: Int64
        public var stages: Int
        public var liveStages: Int
    }

    public struct Scan: Sendable {
        public var directory: String
        public var entries: [Entry]
        /// Sockets that belonged to programs that are gone.
        public var removedStale: [String]
    }

    /// The socket a program with this pid serves by default (when it has no
    /// PIPESCOPE_SOCKET of its own).
    public static func socketPath(pid: Int32) -> String {
        SocketLocation.path(pid: pid)
    }

    /// Whether a program accepts connections on the Unix socket at `path`: not the
    /// file's existence, which a killed program leaves behind (and a new process may get
    /// its pid).
    public static func answers(_ path: String) -> Bool {
        SocketLocation.answers(path)
    }

    public static func scan(directory: String = SocketLocation.directory(), removeStale: Bool = true) -> Scan {
        var result = Scan(directory: directory, entries: [], removedStale: [])
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasSuffix(".sock") {
            let path = directory + "/" + name
            let pid = Int32(name.dropLast(5)) ?? 0
            if pid > 0, kill(pid, 0) != 0, errno == ESRCH {
                if removeStale, unlink(path) == 0 { result.removedStale.append(path) }
                continue
            }
            do {
                let connection = try ProbeConnection.connect(path: path, client: "pipescope list")
                defer { connection.close() }
                let (welcome, snapshot) = try connection.handshake(timeout: 2)
                let live = snapshot.nodes.filter { !$0.status.isTerminal }.count
                result.entries.append(Entry(path: path, pid: welcome.pid, processName: welcome.processName,
                                            startTimeNanos: welcome.startTimeNs, stages: snapshot.nodes.count,
                                            liveStages: live))
            } catch ClientError.notListening {
                if removeStale, unlink(path) == 0 { result.removedStale.append(path) }
            } catch {
                continue  // alive but not answering (stopped in a debugger?): leave it be
            }
        }
        return result
    }
}
