import ArgumentParser
import Foundation
import PipescopeClient

/// `pipescope`: a terminal debugger for Combine pipelines.
///
/// With no subcommand it runs the demo, but the demo is not a default subcommand: the
/// parser would then read every unknown option (`pipescope --bogus`) as the demo's, and
/// answer with the demo's usage. An option pipescope does not know is an error about
/// `pipescope` itself.
@main
struct PipescopeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipescope",
        abstract: "A terminal debugger for Combine pipelines.",
        discussion: """
            With no subcommand, pipescope starts its built-in demo program and attaches to it \
            (`pipescope demo`, whose options need its name: `pipescope demo --headless`). \
            To inspect your own program, link the Pipescope library, call Pipescope.start() \
            early, run it, then `pipescope attach <pid>`.
            """,
        version: Self.version,
        subcommands: [DemoCommand.self, ListCommand.self, AttachCommand.self, SnapshotCommand.self, ExplainCommand.self,
                      RecordCommand.self, ReplayCommand.self, DumpCommand.self, CheckCommand.self,
                      ExportCommand.self, TopCommand.self]
    )

    /// What `--version` prints: the release, and the wire protocol this inspector speaks,
    /// the version a program's Welcome reports and that both sides must share.
    static let version = "pipescope \(ProbeWelcome.release), wire protocol \(ProbeWelcome.currentProtocolVersion) "
        + "(the version a program's Pipescope must speak)"

    /// No subcommand: the demo, as `pipescope demo`.
    func run() throws {
        let demo = try DemoCommand.parse([])
        try demo.run()
    }

    /// As ParsableCommand's, but an error starts `pipescope: ` (as every other error of
    /// pipescope's does) instead of `Error: `; usage and exit status are the parser's.
    static func main() {
        do {
            var command: ParsableCommand
            do {
                command = try parseAsRoot()
            } catch {
                // "-5" reads as an option to the parser, which then says the target is missing.
                if fullMessage(for: error).contains("Missing expected argument"),
                   let negative = negativeNumber(in: CommandLine.arguments.dropFirst()) {
                    FileHandle.standardError.write(Data(("pipescope: " + ClientError.notAPid(negative).description + "\n").utf8))
                    Foundation.exit(ExitCode.validationFailure.rawValue)
                }
                if let unknown = unknownCommand(in: CommandLine.arguments.dropFirst(), error: fullMessage(for: error)) {
                    FileHandle.standardError.write(Data(("pipescope: " + unknown + "\n").utf8))
                    Foundation.exit(ExitCode.validationFailure.rawValue)
                }
                throw error
            }
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            guard code != .success else {
                if !text.isEmpty { print(text) }
                Foundation.exit(code.rawValue)
            }
            if !text.isEmpty {
                FileHandle.standardError.write(Data((Self.personal(text) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }

    /// What to say when the first argument names no command (`pipescope frobnicate`, which
    /// the parser calls an "unexpected argument"): that, and the commands there are.
    static func unknownCommand(in arguments: ArraySlice<String>, error: String) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), error.contains("nexpected argument '\(first)'")
        else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        return "there is no command '\(first)'; the commands are " + names.joined(separator: ", ")
            + " (`pipescope --help` says what each does; plain `pipescope` runs the demo)"
    }

    /// An argument that is a negative number ("-5"): meant as a pid, read as an option.
    static func negativeNumber(in arguments: ArraySlice<String>) -> String? {
        arguments.first { $0.count > 1 && $0.hasPrefix("-") && Int($0) != nil }
    }

    /// "Error: Unknown option '--bogus'" as "pipescope: unknown option '--bogus'".
    static func personal(_ text: String) -> String {
        guard text.hasPrefix("Error: ") else { return text }
        let message = text.dropFirst("Error: ".count)
        return "pipescope: " + message.prefix(1).lowercased() + message.dropFirst()
    }
}
