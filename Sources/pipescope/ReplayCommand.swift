import ArgumentParser
import Foundation
import PipescopeClient
import PipescopeModel

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Open a recording in the inspector, offline.",
        discussion: "With --print or --json, print the recording's final graph instead (the same formats as `snapshot`); "
            + "with --at K as well, the graph as it was right after event K.")

    @Argument(help: "A file made by `pipescope record` or PIPESCOPE_RECORD.")
    var file: String

    @Flag(help: "Print the final tree as text and exit.")
    var print = false

    @Flag(help: "Print the final graph as JSON (like `snapshot --json`) and exit.")
    var json = false

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "With --print or --json: the state as it was right after event K (the number the history line, e and "
            + "explain give), judged at that event's time, instead of the final state.", valueName: "K"))
    var event: UInt64?

    @OptionGroup var lints: LintOptions

    func validate() throws {
        if event != nil, !(json || print) {
            throw ValidationError("--at is for --print and --json; in the inspector, g and [ ] move through the history.")
        }
    }

    func run() throws {
        // Before reading what may be a large recording for nothing; a file that cannot be
        // read at all says so first (load's message).
        if !(json || print), Recording.startsAsRecording(path: file) {
            InspectorLoop.requireTerminal(withoutTerminal: Self.withoutTerminal(file))
        }
        let recording = Self.load(file)
        if let event {
            guard let (graph, at) = recording.graph(upTo: event) else {
                let range = recording.eventRange.map { "its events are numbered \($0.lowerBound) to \($0.upperBound)" }
                    ?? "it holds no event"
                fail("\(file) has no event \(event): \(range).")
            }
            let title = recording.title + " at event \(event), " + Recording.clockTime(at.time)
            Swift.print(lints.report(graph, title: title, now: at.time, json: json))
            if recording.damage != nil { throw ExitCode(1) }
            return
        }
        if json || print {
            Swift.print(lints.report(recording.finalGraph, title: recording.title, now: recording.lastEventNanos, json: json))
            // Printed up to the damage, as `export` exports up to it: less than was recorded.
            if recording.damage != nil { throw ExitCode(1) }
            return
        }
        // Where a cut-short recording ends, on screen as well as (after quitting) on standard error.
        let note = Self.endNote(recording, path: file).map { Message.notice(Notice(text: $0, isError: true)) }
        var loop = InspectorLoop(replaying: recording.messages + (note.map { [$0] } ?? []), targetName: recording.process)
        loop.linter = lints.linter
        loop.withoutTerminal = Self.withoutTerminal(file)
        if case .failed(let message) = loop.run() { fail(message) }
    }
}

extension ReplayCommand {
    static func withoutTerminal(_ file: String) -> String {
        "For output a script can read: `pipescope replay \(file) --json`, or --print for a tree."
    }

    /// Reads `path`, or exits with a message that says what is wrong with it. A file cut
    /// off in the middle of a message, without its end mark, or damaged after some, is
    /// replayed up to its last complete message, with a note that says how much was read,
    /// until when, and why it ends (``RecordingEnd/note(path:events:lastEventAt:doing:)``).
    static func load(_ path: String) -> Recording {
        let recording: Recording
        do {
            recording = try Recording.read(path: path)
        } catch {
            fail("\(error)")
        }
        // Nothing of the program to show: say what the file holds rather than open an empty one.
        if recording.snapshotsRead == 0 || (recording.end != .complete && recording.stagesSeen == 0) {
            fail(recording.end.nothingToShow(path: path, snapshotRead: recording.snapshotsRead > 0))
        }
        if let note = endNote(recording, path: path) { self.note(note) }
        return recording
    }

    /// How far `recording` reaches and why it stops there, unless it is complete.
    private static func endNote(_ recording: Recording, path: String) -> String? {
        let lastEventAt = recording.lastEventNanos > 0 ? Recording.clockTime(recording.lastEventNanos) : nil
        return recording.end.note(path: path, events: recording.eventsRead, lastEventAt: lastEventAt, doing: "Replaying")
    }

    private static func note(_ text: String) {
        FileHandle.standardError.write(Data("pipescope: \(text)\n".utf8))
    }
}
