import Foundation
import PipescopeGraph
#if canImport(Glibc)
import Glibc
import PipescopeWire
#endif

/// Appends messages to a recording file as they come, on a thread of its own
/// (``RecordingOutput``): appending never waits for the disk and never throws. A disk
/// that fails stops the recording and says so (``failure``, and `onFailure` once); the
/// file keeps what was written, and replays up to it.
///
/// Appends come from one thread at a time (the probe's event loop, or `record`'s loop).
///
/// ```swift
/// let writer = try RecordingWriter(path: "app.pipescope") { failure in print(failure) }
/// writer.append(welcome)
/// writer.append(snapshot)
/// writer.append(batches: flush.parts())        // one write: a kill cuts at most this
/// writer.close(reason: "the program exited")   // the end mark: a clean end
/// ```
public final class RecordingWriter {
    public let path: String
    public private(set) var messageCount = 0
    /// Events appended so far (queued; ``failure`` says how many reached the file).
    public private(set) var eventsAppended = 0
    private var stream = WireStreamWriter()
    private let output: RecordingOutput
    private var closed = false

    /// Creates (or truncates) the file and writes the magic line. Throws ``WriterError``
    /// when the file cannot be opened. `queueLimit`: bytes that may wait for the disk
    /// before the recording stops. `onFailure` is called once, on the writer's thread or
    /// the appender's, when the recording stops early.
    public init(path: String, queueLimit: Int = 64 << 20,
                onFailure: (@Sendable (Failure) -> Void)? = nil) throws {
        self.path = path
        output = try RecordingOutput(path: path, limit: queueLimit, onFailure: onFailure)
        output.enqueue(.init(bytes: RecordingFormat.magic))
    }

    deinit { close(reason: "the recording was closed") }

    /// Appends a message as it is (the Welcome).
    public func append(_ message: ServerMessage) {
        output.enqueue(.init(bytes: message.framed()))
        messageCount += 1
    }

    /// Appends a batch, packed as on the wire.
    public func append(_ batch: EventBatch) {
        append(batches: [batch])
    }

    /// Appends the parts of one flush in one write: a kill leaves all of them or a cut.
    public func append(batches: [EventBatch]) {
        guard !batches.isEmpty else { return }
        var chunk = RecordingOutput.Chunk(bytes: [])
        for batch in batches {
            chunk.bytes += stream.message(batch).framed()
            chunk.events += batch.events.count
            if let time = batch.events.last?.time { chunk.lastEventNanos = max(chunk.lastEventNanos, time) }
        }
        output.enqueue(chunk)
        messageCount += batches.count
        eventsAppended += chunk.events
    }

    /// Appends a snapshot, with the recording's string table, in one write (in parts
    /// when it is too big for one frame: a kill leaves all of them or a cut).
    public func append(_ snapshot: GraphSnapshot) {
        let frames = stream.frames(snapshot)
        output.enqueue(.init(bytes: frames.flatMap { $0 }))
        messageCount += frames.count
    }

    /// Writes what is queued, then the end mark with `reason` ("the program exited"),
    /// syncs and closes the file; returns once that is done. Safe to call more than once.
    public func close(reason: String = "the recording was closed") {
        guard !closed else { return }
        closed = true
        output.finish(endMark: RecordingFormat.endMark(reason: reason))
    }

    /// Waits until everything appended so far is in the file (or the recording stopped),
    /// for a reader of the file so far in the same process, as tests are. A program's
    /// path never waits for the disk.
    public func waitUntilWritten() {
        output.waitUntilWritten()
    }

    /// Why the recording stopped early (a full disk, an I/O error), if it did.
    public var failure: Failure? { output.failure }

    /// A recording that stopped before it was closed.
    public struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        public var path: String
        /// What went wrong, in words: "the disk is full (no space left on device)".
        public var reason: String
        /// Events that reached the file, and the time of the last.
        public var events: Int
        public var lastEventNanos: Int64

        public var description: String {
            let last = lastEventNanos > 0 ? " (the last at \(RecordingFormat.clockTime(lastEventNanos)))" : ""
            return "the recording to \(path) stopped after \(events) event\(events == 1 ? "" : "s")\(last): \(reason). "
                + "The program runs on, unrecorded; the file replays up to there."
        }
    }

    public struct WriterError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String

        public init(path: String, errno error: Int32) {
            self.path = path
            reason = Self.advice(path: path, errno: error)
        }

        public var description: String { "cannot write a recording at \(path): \(reason)" }

        /// Why a file cannot be opened, and what to do.
        static func advice(path: String, errno error: Int32) -> String {
            switch error {
            case EISDIR:
                return "it is a directory; give the path of a file to write, for example \(path)/session.pipescope"
            case ENOENT:
                let parent = (path as NSString).deletingLastPathComponent
                return "the directory \(parent.isEmpty ? "." : parent) does not exist; create it, or choose another path"
            case EACCES, EPERM:
                return "it is not writable (permission denied); check the permissions of the file and its directory"
            default:
                return words(errno: error) + "; choose another path"
            }
        }

        /// An errno in words, with the system's own text.
        static func words(errno error: Int32) -> String {
            let system = String(cString: strerror(error)).lowercased()
            switch error {
            case ENOSPC: return "the disk is full (\(system))"
            case EDQUOT: return "the disk quota is used up (\(system))"
            case EROFS: return "the file system is read-only (\(system))"
            case EIO: return "the disk failed to write (\(system))"
            case EFBIG: return "the file is larger than the file system allows (\(system))"
            default: return system
            }
        }
    }
}

extension RecordingFormat {
    /// Local wall-clock time with milliseconds, as the inspector shows times: 12:03:11.402.
    public static func clockTime(_ nanos: Int64) -> String {
        var seconds = time_t(nanos / 1_000_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let ms = Int(nanos / 1_000_000 % 1000)
        return String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, ms)
    }
}
