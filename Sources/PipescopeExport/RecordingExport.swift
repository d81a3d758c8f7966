import PipescopeModel

/// A whole export: a recording in, one pass, a trace file out.
///
/// ```swift
/// var recording = try RecordingMessages(path: "app.pipescope")
/// let result = try RecordingExport.run(&recording, to: "app.json")
/// print(result.stop.description)   // "the recording is complete", or where it stopped
/// ```
public enum RecordingExport {
    public struct Result: Sendable {
        public var summary: ExportSummary
        /// Where reading stopped: how the recording ends.
        public var stop: RecordingEnd
        /// Bytes of the trace written.
        public var outputBytes: Int
        /// The format written.
        public var format: TraceFormat = .json
        /// Perfetto: values whose cause was written too long before them (more than a
        /// batch earlier) or is not drawn, so they have no arrow.
        public var causesMissed = 0
        /// Snapshots read whole: 0 when the recording ends before its first one is, so the
        /// trace has no stage (``RecordingEnd/nothingToShow(path:snapshotRead:)``).
        public var snapshots = 0
    }

    /// Reads every message of `recording` (on a thread of its own, a few messages ahead:
    /// ``ReadAhead``) into a ``TraceExportSession`` writing `output`
    /// (a path, or `-` for standard output) in `format` (by default the one its name
    /// asks for: ``TraceFormat/init(forPath:)``), and finishes the file. A damaged or cut-off
    /// recording still gives a complete trace of everything before the damage, with a
    /// last instant saying where it stopped. Throws ``TraceWriteError`` when
    /// the output cannot be written.
    public static func run<Source: MessageSource>(_ recording: inout Source, to output: String,
                                                     source: String = "", format: TraceFormat? = nil,
                                                     options: ExportOptions = .init()) throws -> Result {
        let exporter = try TraceExportSession(path: output, format: format, options: options)
        let ahead = ReadAhead(recording)
        defer { recording = ahead.stop() }
        var damage: String?
        while true {
            let message: Message?
            do {
                message = try ahead.next()
            } catch {
                damage = "\(error)"
                break
            }
            guard let message else { break }
            try exporter.consume(message)
        }
        let end = RecordingEnd(damage: damage, truncatedBytes: ahead.truncatedBytes, closed: ahead.endReason != nil,
                               messages: ahead.messagesRead, byte: ahead.bytesRead, beingWritten: ahead.beingWritten)
        return try exporter.finish(stop: end, source: source)
    }
}
