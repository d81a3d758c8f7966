import ArgumentParser
import Foundation
import PipescopeClient
import PipescopeModel

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Open a recording in the inspector, offline.",
        discussion: "With --print or --json, print the recording's final graph instead (the same formats as `snapshot`); "
            + "with --at K as well, the graph as it was right after event K. With --follow, a recording still being "
            + "written (by PIPESCOPE_RECORD or `pipescope record`) is read as it grows, like `tail -f`: the inspector "
            + "shows each event as it is written; --print and --json wait until the writer ends, then print.")

    @Argument(help: "A file made by `pipescope record` or PIPESCOPE_RECORD.")
    var file: String

    @Flag(help: "Print the final tree as text and exit.")
    var print = false

    @Flag(help: "Print the final graph as JSON (like `snapshot --json`) and exit.")
    var json = false

    @Option(name: .customLong("at"), parsing: .unconditional, help: ArgumentHelp(
        "With --print or --json: the state as it was right after event K (the number the history line, e and "
            + "explain give), judged at that event's time, instead of the final state.", valueName: "K"))
    var eventArgument: WholeNumberArgument?

    /// `--at`'s event number (``validate()`` refused any other text).
    var event: UInt64? { eventArgument?.value }

    @Flag(help: ArgumentHelp(
        "Follow a recording still being written, as `tail -f` does: the inspector shows events as they are "
            + "written and says when the writer ends; with --print or --json, wait until it ends, then print."))
    var follow = false

    @OptionGroup var lints: LintOptions

    func validate() throws {
        _ = try eventArgument?.checked("--at", takes: "an event number (the history line, e and explain give it)",
                                       example: "120")
        if event != nil, !(json || print) {
            throw ValidationError("--at is for --print and --json; in the inspector, g and [ ] move through the history.")
        }
    }

    func run() throws {
        if json || print || event != nil { try report() } else { inspect() }
    }

    /// `--print`, `--json`, `--at`: the recording folded as it is read (only its graph
    /// kept, whatever its size), the graph printed.
    private func report() throws {
        let fold = Self.fold(file, upTo: event, follow: follow)
        let recording = fold.recording
        if let event {
            guard let at = fold.event else {
                let range = fold.eventRange.map { "its events are numbered \($0.lowerBound) to \($0.upperBound)" }
                    ?? "it holds no event"
                fail("\(file) has no event \(event): \(range).")
            }
            let title = recording.title + " at event \(event), " + Recording.clockTime(at.time)
            Swift.print(lints.report(fold.graph, title: title, now: at.time, json: json))
            if recording.damage != nil { throw ExitCode(1) }
            return
        }
        Swift.print(lints.report(fold.graph, title: recording.title, now: recording.lastEventNanos, json: json))
        // Printed up to the damage, as `export` exports up to it: less than was recorded.
        if recording.damage != nil { throw ExitCode(1) }
    }

    /// The inspector on the recording, read while it is shown.
    private func inspect() {
        // No terminal: said before reading anything; a file that is no recording says that first.
        if Recording.startsAsRecording(path: file) {
            InspectorLoop.requireTerminal(withoutTerminal: Self.withoutTerminal(file))
        }
        // Read while shown: the first screen comes after the first snapshot, not the whole file.
        let stream = Self.open(file, follow: follow)
        var opening: [Message]
        do {
            opening = try stream.readOpening()
        } catch {
            fail("\(error)")
        }
        if stream.following {
            opening.append(.following(true))
        } else if follow {
            opening.append(.notice(Notice(text: "\(file) is not being written (no writer holds it): nothing to follow, "
                + "so it is replayed as it is.", isError: false)))
        }
        let read = stream.recording
        if stream.finished, read.snapshotsRead == 0 || (read.end != .complete && read.stagesSeen == 0) {
            fail(read.end.nothingToShow(path: file, snapshotRead: read.snapshotsRead > 0))
        }
        // Where a cut-short recording ends, on screen once it is read, and on standard error after quitting.
        let path = file
        let followed = stream.following
        var loop = InspectorLoop(streaming: stream, opening: opening, end: { recording in
            Self.endNote(recording, path: path, followed: followed).map {
                Message.notice(Notice(text: $0, isError: recording.end != .complete))
            }
        })
        loop.linter = lints.linter
        loop.withoutTerminal = Self.withoutTerminal(file)
        let outcome = loop.run()
        if stream.finished, stream.recording.end != .complete,
           let note = Self.endNote(stream.recording, path: file, followed: followed) {
            Self.note(note)
        }
        if case .failed(let message) = outcome { fail(message) }
    }
}

extension ReplayCommand {
    static func withoutTerminal(_ file: String) -> String {
        "For output a script can read: `pipescope replay \(file) --json`, or --print for a tree."
    }

    /// Folds `path` as it is read (``RecordingFold``), or exits with a message that says
    /// what is wrong with it. A file cut off in the middle of a message, without its end
    /// mark, or damaged after some, is folded up to its last complete message, with a note
    /// that says how much was read, until when, and why it ends
    /// (``RecordingEnd/note(path:events:lastEventAt:doing:)``).
    ///
    /// `follow`: a recording still being written is read until its writer ends (it says so
    /// on standard error first), and its end is then told as the writer left it.
    static func fold(_ path: String, upTo event: UInt64?, follow: Bool = false) -> RecordingFold {
        let fold: RecordingFold
        var waited = false
        do {
            fold = try RecordingFold.read(path: path, upTo: event, follow: follow, waiting: {
                waited = true
                note("\(path) is being written: waiting until its writer ends (--follow), then printing. "
                    + "Ctrl-C stops waiting.")
            })
        } catch {
            fail("\(error)")
        }
        let recording = fold.recording
        // Nothing of the program to show: say what the file holds rather than print an empty graph.
        if recording.snapshotsRead == 0 || (recording.end != .complete && recording.stagesSeen == 0) {
            fail(recording.end.nothingToShow(path: path, snapshotRead: recording.snapshotsRead > 0))
        }
        if recording.end != .complete, let note = endNote(recording, path: path, followed: waited) { self.note(note) }
        return fold
    }

    /// Opens `path` for reading while shown, or exits saying why it cannot be read.
    private static func open(_ path: String, follow: Bool) -> ReplayStream {
        do {
            return try ReplayStream(path: path, follow: follow)
        } catch {
            fail("\(error)")
        }
    }

    /// How far `recording` reaches and why it stops there, unless it is complete; `followed`
    /// while its writer wrote it (`--follow`), how that writer left it, complete or not.
    private static func endNote(_ recording: Recording, path: String, followed: Bool = false) -> String? {
        let lastEventAt = recording.lastEventNanos > 0 ? Recording.clockTime(recording.lastEventNanos) : nil
        if followed {
            // Its writer stopped before anything could be shown (the inspector opened on the
            // file while it was young): say that, not "N events shown".
            if recording.snapshotsRead == 0 || (recording.end != .complete && recording.stagesSeen == 0) {
                return recording.end.nothingToShow(path: path, snapshotRead: recording.snapshotsRead > 0)
            }
            return recording.end.followed(path: path, events: recording.eventsRead, lastEventAt: lastEventAt)
        }
        return recording.end.note(path: path, events: recording.eventsRead, lastEventAt: lastEventAt, doing: "Replaying")
    }

    private static func note(_ text: String) {
        FileHandle.standardError.write(Data("pipescope: \(text)\n".utf8))
    }
}
