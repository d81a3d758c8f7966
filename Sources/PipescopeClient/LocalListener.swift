import Foundation

/// Which process on this machine listens on a TCP port, read from Linux's `/proc`: how
/// `pipescope top --prometheus` finds the program behind a loopback `instance`
/// (`127.0.0.1:9464` is the program's metrics port; its probe is the Unix socket named
/// for its pid).
///
/// ```swift
/// LocalListener.pid(listeningOn: 9464)   // 4242, or nil
/// ```
public enum LocalListener {
    /// The pid of a process listening on `port` (IPv4 or IPv6), nil when none is (or the
    /// process is another user's, whose descriptors `/proc` does not show).
    public static func pid(listeningOn port: Int, proc: String = "/proc") -> Int32? {
        let inodes = listeningInodes(port: port, tables: ["\(proc)/net/tcp", "\(proc)/net/tcp6"])
        guard !inodes.isEmpty else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: proc)) ?? []
        for name in names {
            guard let pid = Int32(name) else { continue }
            let fds = "\(proc)/\(name)/fd"
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
                guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(fd)"),
                      link.hasPrefix("socket:["), let inode = UInt64(link.dropFirst(8).dropLast()) else { continue }
                if inodes.contains(inode) { return pid }
            }
        }
        return nil
    }

    /// The socket inodes of the LISTEN (state 0A) lines for `port` in `/proc/net/tcp`'s format:
    /// `sl local_address rem_address st … uid timeout inode`, the port in hex after the colon.
    static func listeningInodes(port: Int, tables: [String]) -> Set<UInt64> {
        var found: Set<UInt64> = []
        for table in tables {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A",
                      let colon = fields[1].lastIndex(of: ":"),
                      Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port,
                      let inode = UInt64(fields[9]) else { continue }
                found.insert(inode)
            }
        }
        return found
    }
}
