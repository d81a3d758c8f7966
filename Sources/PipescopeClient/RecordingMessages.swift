import PipescopeModel
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

    /// Opens a recording. Throws ``RecordingFormat/OpenError`` or
    /// ``RecordingFormat/ReadError/notARecording``, which say what to do.
    public init(path: String, chunkSize: Int = 1 << 20) throws {
        self.path = path
        file = try RecordingReader(path: path, chunkSize: chunkSize)
    }

    /// The next message, or nil at the end. Throws
    /// ``RecordingFormat/ReadError/corrupt(afterMessages:reason:)`` for a damaged frame, a
    /// message that is not Pipescope's, or a batch whose columns do not add up: nothing
    /// after it can be read.
    public mutating func next() throws -> Message? {
        guard let frame = try file.next() else { return nil }
        do {
            return try Message(frame, reader: &stream)
        } catch {
            throw RecordingFormat.ReadError.corrupt(afterMessages: file.messagesRead - 1, reason: "\(error)")
        }
    }

    /// Complete messages read so far.
    public var messagesRead: Int { file.messagesRead }
    /// Bytes of the file up to the end of the last complete message.
    public var bytesRead: Int { file.bytesRead }
    /// Bytes cut off after the last complete message (once ``next()`` returned nil).
    public var truncatedBytes: Int { file.truncatedBytes }
}
