import ArgumentParser
import Foundation
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeWire

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
        let recording = Recording.load(file)
        if json || print {
            var graph = Graph()
            for message in recording.messages { recording.fold(message, into: &graph) }
            Swift.print(lints.report(graph, title: recording.title, now: recording.lastEventNanos, json: json))
            return
        }
        var loop = InspectorLoop(replaying: recording.messages, targetName: recording.process)
        loop.linter = lints.linter
        if case .failed(let message) = loop.run() { fail(message) }
    }
}

/// A recording read for replay: its messages as the reducer takes them.
struct Recording {
    var messages: [Message] = []
    var process = "recording"
    var pid: Int32 = 0
    /// The time of the last event: the recording's "now" for time-based lints.
    var lastEventNanos: Int64 = 0

    var title: String { "\(process) (pid \(pid), recorded)" }

    /// Reads `path`, or exits with a message that says what is wrong with it.
    static func load(_ path: String) -> Recording {
        guard let data = FileManager.default.contents(atPath: path) else {
            fail("cannot read \(path): no such file, or not readable")
        }
        let contents: RecordingFormat.Contents
        do {
            contents = try RecordingFormat.read(data)
        } catch {
            fail("\(path): \(error)")
        }
        if contents.truncated {
            FileHandle.standardError.write(Data(
                "pipescope: \(path) ends in the middle of a frame (\(contents.truncatedBytes) bytes); replaying up to the last complete batch\n".utf8))
        }
        var recording = Recording()
        let name = (path as NSString).lastPathComponent
        var reader = WireStreamReader()
        for (index, frame) in contents.messages.enumerated() {
            let message: Message
            do {
                message = try Message(frame, reader: &reader)
            } catch {
                fail("\(path): \(RecordingFormat.ReadError.corrupt(afterMessages: index, reason: "\(error)"))")
            }
            switch message {
            case .attached(let process, let pid, _):
                recording.process = process
                recording.pid = pid
                recording.messages.append(.replaying(file: name, process: process, pid: pid))
            case .snapshot, .batch:
                if case .batch(let b) = message, let t = b.events.last?.time {
                    recording.lastEventNanos = max(recording.lastEventNanos, t)
                }
                recording.messages.append(message)
            default:
                continue
            }
        }
        return recording
    }

    func fold(_ message: Message, into graph: inout Graph) {
        switch message {
        case .snapshot(let s): graph.load(s)
        case .batch(let b): graph.fold(b)
        default: break
        }
    }
}
