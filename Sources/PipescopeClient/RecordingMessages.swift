import PipescopeModel
import PipescopeRecording
import PipescopeWire

/// A recording's messages as the model takes them, read from the file one at a time:
/// frames through ``RecordingReader``, each turned into a ``Message`` by
/// `Message(_:reader:)` (the one conversion), with the stream's string table. Memory
/// holds one chunk of the file, whatever its length.
///
/// ```swift
/// var recording = try RecordingMessages(path: "app.pipescope")
/// while let message = try recording.next() { exporter.consume(message) }
/// if recording.truncatedBytes > 0 { print("cut off after \(recording.messagesRead) messages") }
/// ```
public struct RecordingMessages {
    private var file: RecordingReader
    private var stream = WireStreamReader()
    public let path: String

    /// Opens a recording. Throws a ``Recording/ReadError`` that names the file and says
    /// what to do: it cannot be read (no such file, a directory, permissions), or it is
    /// not a recording.
    public init(path: String, chunkSize: Int = 1 << 20) throws {
        self.path = path
        do {
            file = try RecordingReader(path: path, chunkSize: chunkSize)
        } catch let error as RecordingFormat.OpenError {
            throw Recording.ReadError.unreadable(path: path, reason: error.reason)
        } catch {
            throw Recording.ReadError.invalid(path: path, reason: "\(error)")
        }
    }

    /// The next message, or nil at the end. Throws ``Damage`` for a damaged frame, a
    /// message that is not Pipescope's, or a batch whose columns do not add up: nothing
    /// after it can be read. (A file that cannot be read at all, or something else, is
    /// reported by ``init(path:chunkSize:)``.)
    public mutating func next() throws -> Message? {
        let frame: ServerMessage?
        do {
            frame = try file.next()
        } catch RecordingFormat.ReadError.corrupt(_, let reason) {
            throw Damage(reason: reason)
        }
        guard let frame else { return nil }
        do {
            return try Message(frame, reader: &stream)
        } catch {
            throw Damage(reason: RecordingFormat.damage(error))
        }
    }

    /// What is wrong with the frame after the last complete message: only what, as
    /// "malformed message: …" (where is ``messagesRead`` and ``bytesRead``, and the
    /// caller says it in its own sentence).
    public struct Damage: Error, CustomStringConvertible, Equatable {
        public var reason: String
        public var description: String { reason }
    }

    /// Complete messages read so far.
    public var messagesRead: Int { file.messagesRead }
    /// Bytes of the file up to the end of the last complete message.
    public var bytesRead: Int { file.bytesRead }
    /// Bytes cut off after the last complete message (once ``next()`` returned nil).
    public var truncatedBytes: Int { file.truncatedBytes }
    /// Why the writer closed the recording, from its end mark (once ``next()`` returned
    /// nil); nil when it was never closed (killed, crashed, or its disk full).
    public var endReason: String? { file.endReason }
    /// Whether a writer holds the file (a program still recording): when it was opened, or,
    /// followed, until that writer let go of it.
    public var beingWritten: Bool { file.beingWritten }
    /// Follow the file while its writer appends to it (``RecordingReader/follow``): its
    /// end while a writer holds it is where ``next()`` waits, not the recording's end.
    public var follow: Bool {
        get { file.follow }
        set { file.follow = newValue }
    }
    /// Whether the last ``next()`` returned nil only because a followed writer has not
    /// written more yet: ask again later.
    public var waiting: Bool { file.waiting }
}
