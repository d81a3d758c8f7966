import ArgumentParser
import PipescopeClient
import PipescopeWire

struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Open the inspector on a running program that called Pipescope.start().")

    @Argument(help: "The program's pid, or the path of its Pipescope socket.")
    var target: String

    func run() throws {
        let path = SocketLocation.resolve(target: target)
        let session = InspectorSession.open(path: path)
        let outcome = InspectorLoop(session: session, targetName: session.welcome.processName).run()
        session.connection.close()
        if case .failed(let message) = outcome { fail(message) }
    }
}

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Print a running program's pipeline graph and exit.",
        discussion: "With --json the output is the document described in the README (nodes and dropped).")

    @Argument(help: "The program's pid, or the path of its Pipescope socket.")
    var target: String

    @Flag(help: "Print JSON instead of an indented tree.")
    var json = false

    func run() throws {
        let session = InspectorSession.open(path: SocketLocation.resolve(target: target))
        defer { session.connection.close() }
        print(json ? session.snapshotJSON() : session.snapshotText())
    }
}
