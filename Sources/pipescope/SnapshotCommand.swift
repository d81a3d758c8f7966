import ArgumentParser
import Foundation
import PipescopeModel

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Print a running program's pipeline graph and exit.",
        discussion: "With --json the output is the document described in Sources/Pipescope/Pipescope.docc/SnapshotJSON.md (dropped, nodes, pipelines and lints).")

    @Argument(help: "The program's pid, its socket path, or tcp://host:port.")
    var target: String

    @Flag(help: "Print JSON instead of an indented tree.")
    var json = false

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @OptionGroup var lints: LintOptions

    func run() throws {
        let session = InspectorSession.open(target: target, token: token)
        defer { session.connection.close() }
        print(lints.report(session.graph, title: "\(session.welcome.processName) (pid \(session.welcome.pid))",
                           now: Int64(Date().timeIntervalSince1970 * 1e9), json: json))
    }
}
