import PipescopeModel

/// A recording read one message at a time (PipescopeClient's `RecordingMessages`; the
/// command-line tool declares the conformance).
public protocol RecordedMessages {
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
}

/// A whole export: a recording in, one pass, a trace file out.
///
/// ```swift
/// var recording = try RecordingMessages(path: "app.pipescope")
/// let result = try RecordingExport.run(&recording, to: "app.json")
/// print(result.stop.description)   // "the recording is complete", or where it stopped
/// ```
public enum RecordingExport {
    /// Where reading stopped.
    public enum Stop: Equatable, Sendable, CustomStringConvertible {
        /// The writer closed the recording (its end mark).
        case complete
        /// The file ends after a whole message, but without the end mark: the writer
        /// stopped without closing it (killed, crashed, or its disk full).
        case unfinished(afterMessages: Int, atByte: Int)
        /// The file ends in the middle of a frame: the program stopped while writing.
        case truncated(bytes: Int, afterMessages: Int, atByte: Int)
        /// A frame could not be read; nothing after it can be.
        case damaged(reason: String, afterMessages: Int, atByte: Int)

        public var description: String {
            switch self {
            case .complete:
                return "the recording is complete"
            case .unfinished(let messages, let offset):
                return "the recording ends without its end mark (the program stopped while writing, between two batches): "
                    + "exported its \(messages) complete messages, up to byte \(offset)"
            case .truncated(let bytes, let messages, let offset):
                return "the recording ends in the middle of a message (the program stopped while writing it): "
                    + "exported its \(messages) complete messages, up to byte \(offset); the last \(bytes) bytes were cut off"
            case .damaged(let reason, let messages, let offset):
                return "the recording is damaged after \(messages) messages (at byte \(offset)): \(reason). "
                    + "Exported everything before the damage"
            }
        }

        /// Stops that mean less was exported than was recorded.
        public var isDamaged: Bool {
            if case .damaged = self { return true }
            return false
        }
    }

    public struct Result: Sendable {
        public var summary: ExportSummary
        public var stop: Stop
        /// Bytes of the trace written.
        public var outputBytes: Int
        /// The format written.
        public var format: TraceFormat = .json
        /// Perfetto: values whose cause was written too long before them (more than a
        /// batch earlier) or is not drawn, so they have no arrow.
        public var causesMissed = 0
    }

    /// Reads every message of `recording` (on a thread of its own, a few messages ahead:
    /// ``ReadAhead``) into a ``TraceExportSession`` writing `output`
    /// (a path, or `-` for standard output) in `format` (by default the one its name
    /// asks for: ``TraceFormat/init(forPath:)``), and finishes the file. A damaged or cut-off
    /// recording still gives a complete trace of everything before the damage, with a
    /// last instant saying where it stopped. Throws ``TraceWriteError`` when
    /// the output cannot be written.
    public static func run<Source: RecordedMessages>(_ recording: inout Source, to output: String,
                                                     source: String = "", format: TraceFormat? = nil,
                                                     options: ExportOptions = .init()) throws -> Result {
        let exporter = try TraceExportSession(path: output, format: format, options: options)
        let ahead = ReadAhead(recording)
        defer { recording = ahead.stop() }
        var stop = Stop.complete
        while true {
            let message: Message?
            do {
                message = try ahead.next()
            } catch {
                stop = .damaged(reason: "\(error)", afterMessages: ahead.messagesRead, atByte: ahead.bytesRead)
                break
            }
            guard let message else { break }
            try exporter.consume(message)
        }
        if stop == .complete, ahead.truncatedBytes > 0 {
            stop = .truncated(bytes: ahead.truncatedBytes, afterMessages: ahead.messagesRead, atByte: ahead.bytesRead)
        } else if stop == .complete, ahead.endReason == nil {
            stop = .unfinished(afterMessages: ahead.messagesRead, atByte: ahead.bytesRead)
        }
        return try exporter.finish(stop: stop, source: source)
    }
}
