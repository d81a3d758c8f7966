import ArgumentParser
import Foundation
import PipescopeClient

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the running programs you can attach to.",
        discussion: """
            Looks in this user's Pipescope directory ($XDG_RUNTIME_DIR/pipescope or \
            /tmp/pipescope-<uid>). Sockets left by programs that are gone are removed. \
            Programs serving a custom PIPESCOPE_SOCKET path elsewhere are not listed.
            """)

    func run() throws {
        let scan = ProbeDirectory.scan()
        if !scan.removedStale.isEmpty {
            // One line, however many: a directory of crashed programs' sockets is not news.
            let count = scan.removedStale.count
            FileHandle.standardError.write(Data(
                "pipescope: removed \(counted(count, "stale socket")) of programs that exited (in \(scan.directory))\n".utf8))
        }
        guard !scan.entries.isEmpty else {
            print("No instrumented programs are running (looked in \(scan.directory)).")
            print("A program appears here once it calls Pipescope.start(); try `pipescope demo --headless`.")
            return
        }
        print(Self.table(scan.entries))
    }

    static func table(_ entries: [ProbeDirectory.Entry], numbered: Bool = false) -> String {
        let now = Date().timeIntervalSince1970
        var rows = [[numbered ? "#" : nil, "PID", "NAME", "UPTIME", "STAGES", "LIVE", "SOCKET"].compactMap { $0 }]
        for (i, e) in entries.enumerated() {
            let uptime = max(0, now - Double(e.startTimeNanos) / 1e9)
            rows.append([numbered ? "\(i + 1)" : nil, "\(e.pid)", e.processName, duration(uptime),
                         "\(e.stages)", "\(e.liveStages)", e.path].compactMap { $0 })
        }
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60)s" }
        return "\(s / 3600)h\(s % 3600 / 60)m"
    }
}
