import ArgumentParser

/// `pipescope`: a terminal debugger for Combine pipelines.
@main
struct PipescopeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipescope",
        abstract: "A terminal debugger for Combine pipelines.",
        discussion: """
            With no subcommand, pipescope starts its built-in demo program and attaches to it.
            To inspect your own program, link the Pipescope library, call Pipescope.start() \
            early, run it, then `pipescope attach <pid>`.
            """,
        subcommands: [DemoCommand.self, ListCommand.self, AttachCommand.self, SnapshotCommand.self, ExplainCommand.self,
                      RecordCommand.self, ReplayCommand.self,
                      ExportCommand.self],
        defaultSubcommand: DemoCommand.self
    )
}
