import PipescopeModel

/// Where an export's messages come from: a recording read one message at a time
/// (PipescopeClient's `RecordingMessages`; the command-line tool declares the conformance).
///
/// Its metatype is Sendable (`SendableMetatype`): ``ReadAhead`` reads one on a thread of its own.
public protocol MessageSource: SendableMetatype {
    /// The next message, or nil at the end; throws when the file is damaged there.
    mutating func next() throws -> Message?
    /// Complete messages read so far.
    var messagesRead: Int { get }
    /// Bytes of the file up to the end of the last complete message.
    var bytesRead: Int { get }
    /// Bytes cut off after the last complete message, once ``next()`` returned nil.
    var truncatedBytes: Int { get }
    /// Why the writer closed the recording (its end mark), once ``next()`` returned nil;
    /// nil when it was never closed.
    var endReason: String? { get }
    /// Whether a writer still held the recording when it was opened: it is not finished,
    /// and its end is where the writer has got to.
    var beingWritten: Bool { get }
}

extension MessageSource {
    public var beingWritten: Bool { false }
}
