import Foundation
import PipescopeGraph
#if canImport(Glibc)
import Glibc
import PipescopeWire
#endif

/// Keeps a program's recent events always, in rotating segment files under a disk
/// budget: `PIPESCOPE_FLIGHT=DIR`, or `Pipescope.start(flightRecorder:)`. `pipescope dump`
/// joins the segments into one recording.
///
/// - **Each segment is a whole recording**: the magic line, the Welcome, a snapshot of the
///   graph (what an inspector gets when it attaches), then the batches of each flush, and
///   an end mark when it is closed. So a segment replays on its own once older ones are
///   gone, and a program that crashes leaves segments that replay up to the last flush.
/// - **The budget is never exceeded.** Every byte is counted here, before it is queued,
///   the segment being written included, with room kept for its end mark. Before a write
///   would cross the budget, the oldest segments are deleted, on the writer's thread and
///   before the write, so the directory never holds more than the budget. A flush that
///   does not fit even alone starts a new segment whose snapshot stands for its events.
/// - **The window.** A closed segment whose newest event is older than the window is
///   deleted. The segment being written is always kept, so an idle program still has its
///   last state and events. Segments of earlier runs in the directory (a crash you have
///   not dumped yet) count against the budget, are deleted first when it is reached,
///   and are not deleted by the window.
/// - A segment ends at an eighth of the budget or an eighth of the window, whichever
///   comes first, so the recorder keeps at least seven eighths of what it may.
/// - Bytes go to disk on the recording's writer thread (``RecordingOutput``): appending
///   never waits for the disk. A failure (a full disk, an unwritable directory) stops the
///   recorder, and `onFailure` says why, once; the program runs on.
///
/// Appends come from one thread (the probe's event loop).
public final class FlightRecorder {
    package let options: Options
    private let output: RecordingOutput
    private let welcome: [UInt8]
    private let run: String
    private let onFailure: @Sendable (String) -> Void
    private var stream = WireStreamWriter()
    private var number = 0

    private struct Segment {
        var path: String
        var bytes: Int
        /// The newest event's time (or when the segment started, if it has none); nil for
        /// an earlier run's segment, which the window does not delete.
        var newest: Int64?
    }
    /// Closed segments, oldest first.
    private var closed: [Segment] = []
    private var current: Segment
    private var currentStarted: Int64
    private var currentHasEvents = false
    private var stopped = false

    /// Bytes that may wait for the disk before the recorder stops (the disk did not keep up).
    static let queueLimit = 16 << 20

    /// Room kept in every segment for its end mark.
    static let endMarkRoom = 160

    /// Makes the directory if needed, opens the first segment and queues its head (the
    /// Welcome and `snapshot`). Throws a ``Failure`` that says why it cannot.
    package init(options: Options, welcome: ServerMessage, pid: Int32 = getpid(), startNanos: Int64,
                 snapshot: GraphSnapshot, now: Int64, onFailure: @escaping @Sendable (String) -> Void) throws {
        self.options = options
        self.onFailure = onFailure
        self.welcome = welcome.framed()
        let run = FlightSegments.run(pid: pid, startNanos: startNanos)
        self.run = run
        let directory = options.directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(directory: directory, reason: Self.reason(creating: directory))
        }
        let earlier: [FlightSegments.Segment]
        do {
            earlier = try FlightSegments.list(directory)
        } catch {
            throw Failure(directory: directory, reason: "it cannot be listed (\(error.localizedDescription))")
        }
        // Every segment already there counts (a run started again in the same second
        // goes on after its own last number).
        closed = earlier.map { Segment(path: $0.path, bytes: $0.bytes, newest: nil) }
        number = (earlier.filter { $0.run == run }.map(\.number).max() ?? 0) + 1
        let first = FlightSegments.path(in: directory, run: run, number: number)
        let say = onFailure
        do {
            // What may wait for the disk is memory, not disk: the budget counts what is
            // queued, and deletes run before the writes that need their room.
            output = try RecordingOutput(path: first, limit: Self.queueLimit) { failure in
                say("the flight recorder in \(directory) stopped: \(failure.reason) (writing \(failure.path)). "
                    + "The program runs on; the segments written so far stay, for `pipescope dump \(directory)`.")
            }
        } catch let error as RecordingWriter.WriterError {
            throw Failure(directory: directory, reason: error.reason)
        }
        current = Segment(path: first, bytes: 0, newest: now)
        currentStarted = now
        let head = head(snapshot)
        var deletes: [String] = []
        guard makeRoom(for: head.count + Self.endMarkRoom, deleting: &deletes) else {
            output.finish(endMark: [])
            unlink(first)
            throw Failure(directory: directory, reason: tooSmall(head.count))
        }
        output.enqueue(.init(bytes: head, deletes: deletes))
        current.bytes = head.count
    }

    /// A segment's first bytes: the magic line, the Welcome, and `snapshot` with the
    /// (new) stream's string table.
    private func head(_ snapshot: GraphSnapshot) -> [UInt8] {
        stream = WireStreamWriter()
        // The last caused events (for "why" in a replay) are most of a small graph's
        // snapshot: as many as a budget of this size affords, up to all of them.
        var snapshot = snapshot
        let recent = min(snapshot.recent.count, options.budget / Self.budgetPerRecentEvent)
        if recent < snapshot.recent.count { snapshot.recent.removeFirst(snapshot.recent.count - recent) }
        return RecordingFormat.magic + welcome + stream.frames(snapshot).flatMap { $0 }
    }

    /// Budget bytes a segment's snapshot may spend on one of the last caused events:
    /// 64 MiB keeps all 4,096; 64 KiB keeps 256.
    static let budgetPerRecentEvent = 256

    /// Records one flush's batches (none when nothing happened: the window and the
    /// segment's age are still looked at). `snapshot` is asked for when a new segment
    /// starts: the graph after these batches.
    package func append(batches: [EventBatch], now: Int64, snapshot: () -> GraphSnapshot) {
        guard !stopped else { return }
        if output.failure != nil { stopped = true; return }
        var deletes: [String] = []
        if !batches.isEmpty {
            var chunk = RecordingOutput.Chunk(bytes: [])
            for batch in batches {
                chunk.bytes += stream.message(batch).framed()
                chunk.events += batch.events.count
                if let time = batch.events.last?.time { chunk.lastEventNanos = max(chunk.lastEventNanos, time) }
            }
            guard makeRoom(for: chunk.bytes.count + Self.endMarkRoom, deleting: &deletes) else {
                // Too big for the budget next to this segment: a new segment, whose
                // snapshot stands for these events, takes its place.
                return rotate(now: now, snapshot: snapshot(), deleting: deletes)
            }
            chunk.deletes = deletes
            deletes = []
            output.enqueue(chunk)
            current.bytes += chunk.bytes.count
            if chunk.events > 0 {
                currentHasEvents = true
                current.newest = max(current.newest ?? 0, chunk.lastEventNanos)
            }
        }
        let oldest = now - Int64(options.window * 1e9)
        while let first = closed.first, let newest = first.newest, newest < oldest {
            deletes.append(first.path)
            closed.removeFirst()
        }
        let span = Int64(options.window / 8 * 1e9)
        if current.bytes >= options.budget / 8 || (currentHasEvents && now - currentStarted >= span) {
            rotate(now: now, snapshot: snapshot(), deleting: deletes)
        } else if !deletes.isEmpty {
            output.enqueue(.init(bytes: [], deletes: deletes))
        }
    }

    /// Closes the segment being written (with its end mark) and starts the next with
    /// `snapshot`, deleting `deletes` and as many of the oldest segments as its room needs.
    private func rotate(now: Int64, snapshot: GraphSnapshot, deleting deletes: [String]) {
        number += 1
        let next = FlightSegments.path(in: options.directory, run: run, number: number)
        let mark = RecordingFormat.endMark(reason: "the flight recorder went on in \((next as NSString).lastPathComponent)")
        output.enqueue(.init(bytes: mark))
        current.bytes += mark.count
        closed.append(current)
        current = Segment(path: next, bytes: 0, newest: now)
        let head = head(snapshot)
        var deletes = deletes
        guard makeRoom(for: head.count + Self.endMarkRoom, deleting: &deletes) else {
            return stop(tooSmall(head.count))
        }
        output.enqueue(.init(bytes: head, deletes: deletes, opens: next))
        current.bytes = head.count
        currentStarted = now
        currentHasEvents = false
    }

    /// Deletes the oldest closed segments until `bytes` more fit in the budget (adding
    /// their paths to `deletes`); false if they do not fit even with all of them gone.
    private func makeRoom(for bytes: Int, deleting deletes: inout [String]) -> Bool {
        var total = closed.reduce(0) { $0 + $1.bytes } + current.bytes
        while total + bytes > options.budget, !closed.isEmpty {
            let oldest = closed.removeFirst()
            deletes.append(oldest.path)
            total -= oldest.bytes
        }
        return total + bytes <= options.budget
    }

    private func tooSmall(_ head: Int) -> String {
        "its budget, \(Options.describe(bytes: options.budget)), cannot hold a snapshot of the program's pipelines "
            + "(\(Options.describe(bytes: head))) and its events; set PIPESCOPE_FLIGHT_BUDGET higher"
    }

    private func stop(_ reason: String) {
        stopped = true
        output.finish(endMark: [])
        onFailure("the flight recorder in \(options.directory) stopped: \(reason). The program runs on.")
    }

    /// Whether the recorder has stopped (why went to `onFailure`, once).
    package var hasStopped: Bool { stopped || output.failure != nil }

    /// Waits until everything appended so far is on disk (tests).
    package func waitUntilWritten() { output.waitUntilWritten() }

    /// Ends the segment being written with its end mark (`reason`, cut to fit the room
    /// kept for it) and closes it.
    package func close(reason: String = "the program exited") {
        guard !stopped else { return }
        stopped = true
        var mark = RecordingFormat.endMark(reason: reason)
        if mark.count > Self.endMarkRoom { mark = RecordingFormat.endMark(reason: "the program stopped recording") }
        output.finish(endMark: mark)
    }

    /// Why the recorder cannot start: the directory cannot be made or written, or the
    /// budget is too small.
    package struct Failure: Error, CustomStringConvertible {
        package var directory: String
        package var reason: String
        package var description: String {
            "no flight recorder in \(directory): \(reason). The program runs on without it."
        }
    }

    private static func reason(creating directory: String) -> String {
        var parent = directory
        while !parent.isEmpty, access(parent, F_OK) != 0 { parent = (parent as NSString).deletingLastPathComponent }
        if access(directory, F_OK) == 0 {
            return "it is not a directory, or not writable"
        }
        return "it cannot be made (\(parent.isEmpty ? "/" : parent) is not writable, or is not a directory)"
    }

    /// A line on standard error, written directly.
    package static func say(_ text: String) {
        let line = Array("pipescope: \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
