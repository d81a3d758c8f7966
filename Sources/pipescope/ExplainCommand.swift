import ArgumentParser
import Foundation
import PipescopeModel

/// `pipescope explain TARGET [--json]`: where each active pipeline waits, for scripts and
/// bug reports (``WaitReport``).
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print where each active pipeline of a running program waits, and exit.",
        discussion: """
            One line per active pipeline, the waiting ones first: waits ↑ (demand is outstanding and \
            the named stage upstream sends nothing), held: demand 0 (its subscriber asks for nothing more), \
            no subscription (an upstream never sent one), or flowing. A wait is --stall-after seconds \
            without progress (2 by default). With --json: {"pipelines": [{"root", "name", "wait"}]}, \
            wait being null or {"reason", "seconds", "at"} as in snapshot --json.
            """)

    @Argument(help: "The program's pid, its socket path, or tcp://host:port.")
    var target: String

    @Flag(help: "Print JSON instead of one line per pipeline.")
    var json = false

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @OptionGroup var lints: LintOptions

    func run() throws {
        let session = InspectorSession.open(target: target, token: token)
        defer { session.connection.close() }
        let graph = session.graph
        let report = WaitReport(graph, waits: lints.waits(graph, now: Int64(Date().timeIntervalSince1970 * 1e9)))
        print(json ? report.json : report.text)
    }
}
