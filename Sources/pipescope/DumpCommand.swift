import ArgumentParser
import Foundation
import PipescopeClient

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write a flight recorder's kept window as one recording, for `pipescope replay` and `export`.",
        discussion: """
            A program started with PIPESCOPE_FLIGHT=DIR keeps its recent events in DIR. The dump \
            joins them, oldest first, into FILE. TARGET is DIR itself (also after the program \
            crashed), or a running program's pid or socket path (its DIR is found beside its socket). \
            The program runs on while it is dumped.
            """)

    @Argument(help: "The flight recorder's directory, or the program's pid or socket path.")
    var target: String

    @Option(name: .shortAndLong, help: "The recording file to write.")
    var output: String

    @Option(help: "With several runs' segments in DIR, the run of this pid (default: the newest run).")
    var pid: Int32?

    func run() throws {
        do {
            let summary = try Self.dump(target: target, to: output, pid: pid)
            FileHandle.standardError.write(Data(("pipescope: " + summary + "\n").utf8))
        } catch {
            fail("\(error)")
        }
    }

    /// Dumps `target` to `output` and says what was written, in one sentence (or more: other
    /// runs in the directory). Throws ``FlightDump/Failure`` with what to do.
    static func dump(target: String, to output: String, pid: Int32? = nil) throws -> String {
        let (directory, _) = try FlightDump.directory(forTarget: target)
        let dump = try FlightDump.write(directory: directory, to: output, pid: pid)
        var said = "dumped \(counted(dump.events, "event"))"
        if dump.events > 0 {
            said += " from \(Recording.clockTime(dump.firstEventNanos)) to \(Recording.clockTime(dump.lastEventNanos))"
        }
        said += " of \(dump.process) (pid \(dump.pid)), \(counted(dump.segments, "segment")) of \(directory), to \(output)"
        said += dump.closed ? " (the program had exited)." : "."
        if !dump.otherRuns.isEmpty {
            let newer = dump.newerRuns, earlier = dump.otherRuns.count - newer
            let runs = [earlier > 0 ? counted(earlier, "earlier run") : nil, newer > 0 ? counted(newer, "newer run") : nil]
                .compactMap { $0 }.joined(separator: " and ")
            said += " \(directory) also holds \(runs) (\(dump.otherRuns.joined(separator: ", "))): dump one with --pid."
        }
        return said
    }
}
