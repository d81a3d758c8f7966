import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeWire

/// A whole recording read for replay: its messages as the reducer takes them, with who
/// the program was. Read through ``RecordingMessages`` (the reader `pipescope export`
/// uses too), keeping what a replay shows: the Welcome becomes `.replaying`, and the
/// snapshots and batches stay; acknowledgements and refusals are left out.
///
/// ```swift
/// let recording = try Recording.read(path: "app.pipescope")
/// var state = AppState()
/// for message in recording.messages { state.reduce(message) }
/// if recording.truncatedBytes > 0 { print("cut off after \(recording.eventsRead) events") }
/// ```
public struct Recording {
    /// The messages to replay, in order.
    public var messages: [Message] = []
    /// The recorded program's process name ("recording" when the file does not say).
    public var process = "recording"
    /// The recorded program's pid (0 when the file does not say).
    public var pid: Int32 = 0
    /// The file's name, as the status line shows it.
    var name = ""
    /// The time of the last event: the recording's "now" for time-based lints.
    public var lastEventNanos: Int64 = 0
    /// Events in the batches read (all of them, unless the file is cut off or damaged).
    public var eventsRead = 0
    /// Snapshots read whole: 0 for a file that ends before its first one is, which then
    /// has nothing to show (``RecordingEnd/nothingToShow(path:snapshotRead:)``).
    public var snapshotsRead = 0
    /// Stages the messages read make: the snapshots' and the batches' new ones (0: the
    /// file has no stage to show, ``RecordingEnd/nothingToShow(path:snapshotRead:)``).
    public var stagesSeen = 0
    /// Bytes of the file up to the end of the last complete message read.
    public var bytesRead = 0
    /// How the recording ends: closed by its writer, or where and why reading stopped
    /// (the messages before that are replayed).
    public var end = RecordingEnd.complete
    /// Why the writer closed the recording, from its end mark; nil when it was never
    /// closed: its program stopped (killed, crashed, or its disk full), or it is a copy cut short.
    public var endReason: String?
    /// Bytes cut off after the last complete message: the program stopped while writing, or a copy cut short.
    public var truncatedBytes: Int { end.truncatedBytes }
    /// What was wrong with the frame where reading stopped, when the file is damaged
    /// there (``RecordingMessages/Damage``).
    public var damage: String? { end.damage }

    public init() {}

    /// Local wall-clock time with milliseconds, as the inspector shows times and a
    /// recording's end is told: 12:03:11.402.
    public static func clockTime(_ nanos: Int64) -> String { RecordingFormat.clockTime(nanos) }

    /// How the recording is named in a title.
    public var title: String { "\(process) (pid \(pid), recorded)" }

    /// Whether the file at `path` starts as a recording does (its first line), without
    /// reading the rest: a regular file, readable, that `read(path:)` will try.
    public static func startsAsRecording(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: RecordingFormat.magic.count)) ?? Data()
        return Array(head) == RecordingFormat.magic
    }

    /// Reads the whole recording at `path`. Throws a ``ReadError`` that says what is wrong
    /// with the file when it cannot be read at all; a recording cut off or damaged after
    /// some messages is not an error: it keeps what came before (``truncatedBytes``,
    /// ``damage``).
    ///
    /// `follow`: a recording still being written is read until its writer lets go of it
    /// (closes it, or dies), polling every `pollSeconds`; `waiting` is told once, before the
    /// first wait (`replay --print --follow` says so on standard error).
    public static func read(path: String, follow: Bool = false, pollSeconds: Double = 0.05,
                            waiting: () -> Void = {}) throws -> Recording {
        var recording = Recording()
        var messages: [Message] = []
        try recording.read(path: path, follow: follow, pollSeconds: pollSeconds, waiting: waiting) { messages.append($0) }
        recording.messages = messages
        return recording
    }

    /// Reads every message of `path` into this recording's counts (``take(_:)``), handing
    /// each one a replay applies to `apply`, and how the file ends (``finish(_:damage:)``):
    /// the one loop ``read(path:follow:pollSeconds:waiting:)`` and ``RecordingFold`` share.
    mutating func read(path: String, follow: Bool, pollSeconds: Double, waiting: () -> Void,
                       apply: (Message) -> Void) throws {
        var file = try RecordingMessages(path: path)
        file.follow = follow
        var waited = false
        name = (path as NSString).lastPathComponent
        var damage: String?
        while true {
            let next: Message?
            do {
                next = try file.next()
            } catch let found as RecordingMessages.Damage {
                damage = found.reason
                break
            } catch let error as RecordingFormat.OpenError {
                throw ReadError.unreadable(path: path, reason: error.reason)
            } catch {
                throw ReadError.invalid(path: path, reason: "\(error)")
            }
            guard let message = next else {
                guard file.waiting else { break }
                if !waited { waiting() }
                waited = true
                Thread.sleep(forTimeInterval: pollSeconds)
                continue
            }
            if let kept = take(message) { apply(kept) }
        }
        finish(file, damage: damage)
    }

    /// Counts `message` (who the program was, snapshots, stages, events, the last
    /// event's time) and returns what a replay applies for it: the Welcome as
    /// `.replaying`, snapshots and batches as they are; nil for acknowledgements and
    /// refusals. ``read(path:)`` keeps them all; ``ReplayStream`` hands them on.
    mutating func take(_ message: Message) -> Message? {
        switch message {
        case .attached(let process, let pid, _):
            self.process = process
            self.pid = pid
            return .replaying(file: name, process: process, pid: pid)
        case .snapshot(let snapshot):
            snapshotsRead += 1
            stagesSeen += snapshot.nodes.count
            return message
        case .batch(let b):
            stagesSeen += b.nodes.count
            eventsRead += b.events.count
            if let t = b.events.last?.time { lastEventNanos = max(lastEventNanos, t) }
            return message
        default:
            return nil
        }
    }

    /// Records how reading `file` ended: closed by its writer, cut off, or `damage`.
    mutating func finish(_ file: RecordingMessages, damage: String?) {
        bytesRead = file.bytesRead
        endReason = file.endReason
        end = RecordingEnd(damage: damage, truncatedBytes: file.truncatedBytes, closed: file.endReason != nil,
                           messages: file.messagesRead, byte: file.bytesRead, beingWritten: file.beingWritten)
    }

    /// The graph at the end of the recording.
    public var finalGraph: Graph { fold(upTo: nil).graph }

    /// The graph as it was right after event `id` (the probe's number, the one the history
    /// line, `e` and `explain` give): the recording's snapshot, then its events up to and
    /// including that one, as if the recording had been cut right after it. What was learnt
    /// about a stage after it (where it was made, its code: found a batch or two later) is
    /// the stage's, not a moment's, and is kept. Nil when no event of the recording has that number;
    /// ``eventRange`` says which it has. (``RecordingFold/read(path:upTo:)`` does the same
    /// while reading a file, without keeping its messages.)
    ///
    /// ```swift
    /// if let (graph, event) = recording.graph(upTo: 2_494) { linter.lints(graph, now: event.time) }
    /// ```
    public func graph(upTo id: EventID) -> (graph: Graph, event: StageEvent)? {
        let fold = fold(upTo: id)
        return fold.event.map { (fold.graph, $0) }
    }

    /// The numbers of the first and last events the recording holds; nil when it holds none.
    public var eventRange: ClosedRange<EventID>? {
        var first: EventID?
        var last: EventID?
        for case .batch(let b) in messages {
            if first == nil, let id = b.events.first?.id { first = id }
            if let id = b.events.last?.id { last = id }
        }
        guard let first, let last, first <= last else { return nil }
        return first...last
    }

    private func fold(upTo id: EventID?) -> RecordingFold {
        var fold = RecordingFold(upTo: id)
        for message in messages { fold.take(message) }
        return fold
    }

    /// Why a recording could not be read, in words a person can act on.
    public enum ReadError: Error, CustomStringConvertible, Equatable {
        /// No such file, a directory, or not readable: `reason` says which.
        case unreadable(path: String, reason: String)
        /// Not a recording: `reason` says what to do.
        case invalid(path: String, reason: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                return RecordingFormat.OpenError(path: path, reason: reason).description
            case .invalid(let path, let reason): return "\(path): \(reason)"
            }
        }
    }
}
