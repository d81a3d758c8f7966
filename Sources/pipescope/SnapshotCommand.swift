import ArgumentParser
import Foundation
import PipescopeModel

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Print a running program's pipeline graph and exit.",
        discussion: """
            With --json the output is the document described in Sources/Pipescope/Pipescope.docc/SnapshotJSON.md \
            (dropped, locationsPending, nodes, pipelines and lints). In a program's first moments, while it is still \
            resolving where its stages were made, the snapshot waits up to 2 s for those locations; any still \
            pending then are said (a last line, or "locationsPending": true).
            """)

    @Argument(help: "The program's pid, its name (as `pipescope list` shows it), its socket path, or tcp://host:port.")
    var target: String

    @Flag(help: "Print JSON instead of an indented tree.")
    var json = false

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @OptionGroup var lints: LintOptions

    /// Seconds a snapshot waits at most for locations the program is still resolving.
    static let locationWait = 2.0

    func run() throws {
        // A program in its first moments is still resolving where its stages were made:
        // wait a little for them rather than print nulls that would be there a second later.
        let session = InspectorSession.open(target: target, command: "pipescope snapshot", token: token)
            .settlingLocations(timeout: Self.locationWait)
        defer { session.connection.close() }
        print(lints.report(session.graph, title: "\(session.welcome.processName) (pid \(session.welcome.pid))",
                           now: Int64(Date().timeIntervalSince1970 * 1e9), json: json,
                           locationsPending: session.snapshot.locationsPending))
    }
}
