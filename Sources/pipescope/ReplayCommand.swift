import ArgumentParser
import Foundation
import PipescopeClient
import PipescopeModel

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Open a recording in the inspector, offline.",
        discussion: "With --print or --json, print the recording's final graph instead (the same formats as `snapshot`).")

    @Argument(help: "A file made by `pipescope record` or PIPESCOPE_RECORD.")
    var file: String

    @Flag(help: "Print the final tree as text and exit.")
    var print = false

    @Flag(help: "Print the final graph as JSON (like `snapshot --json`) and exit.")
    var json = false

    @OptionGroup var lints: LintOptions

    func run() throws {
        let recording = Self.load(file)
        if json || print {
            Swift.print(lints.report(recording.finalGraph, title: recording.title, now: recording.lastEventNanos, json: json))
            return
        }
        var loop = InspectorLoop(replaying: recording.messages, targetName: recording.process)
        loop.linter = lints.linter
        if case .failed(let message) = loop.run() { fail(message) }
    }
}

extension ReplayCommand {
    /// Reads `path`, or exits with a message that says what is wrong with it; a file cut
    /// off in the middle of a frame is replayed up to its last complete batch, with a note.
    static func load(_ path: String) -> Recording {
        let recording: Recording
        do {
            recording = try Recording.read(path: path)
        } catch {
            fail("\(error)")
        }
        if recording.truncatedBytes > 0 {
            FileHandle.standardError.write(Data(
                "pipescope: \(path) ends in the middle of a frame (\(recording.truncatedBytes) bytes); replaying up to the last complete batch\n".utf8))
        }
        return recording
    }
}
