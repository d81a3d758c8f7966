import Foundation
import PipescopeModel

/// A recording read for the inspector while it is shown: a slice of messages at a time,
/// never the whole file in memory (what the model keeps is bounded by its history's
/// window, checkpoints and graph; the rest of the history goes to its spill).
///
/// ```swift
/// let stream = try ReplayStream(path: "app.pipescope")
/// let opening = try stream.readOpening()          // up to the first stage to show
/// let app = InspectorApp(targetName: stream.recording.process, initial: opening,
///                        poll: { stream.next(forNanos: 30_000_000) })
/// ```
///
/// ``recording`` counts what was read (events, stages, how the file ends); its
/// `messages` stay empty.
public final class ReplayStream {
    private var file: RecordingMessages
    public let path: String
    /// The file's size when it was opened: "reading 120 of 410 MB".
    public let totalBytes: Int
    /// What was read so far, counted (``Recording/messages`` stays empty).
    public private(set) var recording = Recording()
    /// Whether the whole file has been read (then ``recording``'s `end` says how it ends).
    public private(set) var finished = false
    /// Whether it follows a recording its writer was writing when it was opened (`replay
    /// --follow`): then the file's end is not the recording's until the writer lets go.
    public let following: Bool
    /// Whether everything written so far is read and the writer has not written more yet.
    public var waiting: Bool { !finished && file.waiting }

    /// Opens the recording at `path`; throws a ``Recording/ReadError`` as
    /// ``Recording/read(path:)`` does. `follow`: read what its writer appends until it
    /// lets go of the file (``RecordingReader/follow``).
    public init(path: String, follow: Bool = false) throws {
        self.path = path
        file = try RecordingMessages(path: path)
        file.follow = follow
        following = follow && file.beingWritten
        recording.name = (path as NSString).lastPathComponent
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
        totalBytes = size ?? 0
    }

    /// Reads up to the first thing to show: the first snapshot, and, when it holds no
    /// stage, on to the first batch that makes one (or the end). What was read, to apply
    /// before the first frame. ``finished`` with nothing to show: the caller says what
    /// the file holds (``RecordingEnd/nothingToShow(path:snapshotRead:)``).
    public func readOpening() throws -> [Message] {
        var messages: [Message] = []
        while !finished, recording.snapshotsRead == 0 || recording.stagesSeen == 0 {
            guard let message = try read() else { break }
            messages.append(message)
        }
        return messages
    }

    /// The messages read within about `nanos` (at least one while any is left), then where
    /// reading is (``Message/reading(bytes:of:)``); at the end, `end` once (the note on
    /// how the recording ends, if the caller has one), then nothing. Followed, what the
    /// writer appended since (nothing while it writes nothing), and ``Message/following(_:)``
    /// once when its writer lets go, before `end`.
    public func next(forNanos nanos: Int64, end: (Recording) -> Message? = { _ in nil }) -> [Message] {
        guard !finished else { return [] }
        var messages: [Message] = []
        let deadline = Self.now() + nanos
        var read = 0
        repeat {
            guard let message = try? self.read() else { break }
            messages.append(message)
            read += 1
            // The clock is read every few messages: a batch takes about a millisecond to fold.
        } while !finished && (read % 4 != 0 || Self.now() < deadline)
        if finished {
            messages.append(.reading(bytes: file.bytesRead, of: file.bytesRead))
            if following { messages.append(.following(false)) }
            if let note = end(recording) { messages.append(note) }
        } else if file.waiting {
            messages.append(.reading(bytes: file.bytesRead, of: file.bytesRead))
        } else {
            messages.append(.reading(bytes: file.bytesRead, of: max(totalBytes, file.bytesRead)))
        }
        return messages
    }

    /// The next message to apply, or nil at the end of the file (``finished``).
    private func read() throws -> Message? {
        while true {
            let next: Message?
            do {
                next = try file.next()
            } catch let found as RecordingMessages.Damage {
                finish(damage: found.reason)
                return nil
            } catch {
                if recording.snapshotsRead == 0 { throw error }
                finish(damage: "\(error)")
                return nil
            }
            guard let message = next else {
                // Followed: all its writer has written so far is read; more may come.
                if file.waiting { return nil }
                finish(damage: nil)
                return nil
            }
            if let kept = recording.take(message) { return kept }
        }
    }

    private func finish(damage: String?) {
        finished = true
        recording.finish(file, damage: damage)
    }

    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
