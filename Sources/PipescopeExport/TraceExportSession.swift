import PipescopeModel

/// The trace formats an export writes.
public enum TraceFormat: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Perfetto's own protobuf trace (``PerfettoWriter``): what ui.perfetto.dev and
    /// trace_processor read natively, with a track per stage, arrows from causes, and
    /// demand counters.
    case perfetto
    /// The Chrome trace event format (``ChromeJSONWriter``), for chrome://tracing; Perfetto
    /// opens it too, as a legacy format.
    case json

    /// The format a file's name asks for: `.json` is JSON; `.perfetto-trace`, `.pftrace`
    /// and anything else (`-` too) is Perfetto's.
    ///
    /// ```swift
    /// TraceFormat(forPath: "app.perfetto-trace")   // .perfetto
    /// TraceFormat(forPath: "app.json")             // .json
    /// ```
    public init(forPath path: String) {
        self = path.lowercased().hasSuffix(".json") ? .json : .perfetto
    }

    public var description: String { rawValue }
}

/// An export as it goes, in either format: the recording's messages in, one at a time
/// (from a file, or from a probe while `pipescope record` writes the recording), and the
/// trace streamed to its file.
///
/// ```swift
/// let export = try TraceExportSession(path: "app.perfetto-trace")
/// for message in messages { try export.consume(message) }
/// let result = try export.finish(stop: .complete, source: "app.pipescope")
/// ```
public final class TraceExportSession {
    public let path: String
    public let format: TraceFormat
    private enum Output {
        case json(TraceFileWriter, TraceWalk<ChromeJSONWriter>)
        case perfetto(PerfettoFileWriter, TraceWalk<PerfettoWriter>)
    }
    private let output: Output

    /// Creates the output (its format from its name unless given). Throws
    /// ``TraceWriteError`` when it cannot be written.
    public init(path: String, format: TraceFormat? = nil, options: ExportOptions = .init()) throws {
        self.path = path
        self.format = format ?? TraceFormat(forPath: path)
        switch self.format {
        case .json:
            let writer = try TraceFileWriter(path: path)
            output = .json(writer, TraceWalk(writer: ChromeJSONWriter(sink: writer), options: options))
        case .perfetto:
            let file = try PerfettoFileWriter(path: path)
            output = .perfetto(file, TraceWalk(writer: PerfettoWriter(sequence: PerfettoSequence(file: file)), options: options))
        }
    }

    /// Takes the next message of the recording, in order.
    public func consume(_ message: Message) throws {
        switch output {
        case .json(_, let exporter): try exporter.consume(message)
        case .perfetto(_, let exporter): try exporter.consume(message)
        }
    }

    /// Stages whose slice is still open (the memory an export holds grows with these).
    public var openStageCount: Int {
        switch output {
        case .json(_, let exporter): return exporter.openStageCount
        case .perfetto(_, let exporter): return exporter.openStageCount
        }
    }

    /// Ends the trace, saying where the recording stopped when it was cut short, and
    /// puts the file in place.
    public func finish(stop: RecordingExport.Stop, source: String = "") throws -> RecordingExport.Result {
        let ending = stop == .complete ? nil : stop.description
        switch output {
        case .json(let writer, let exporter):
            let summary = try exporter.finish(ending: ending)
            var facts: [String: String] = [
                "exported_by": "pipescope export",
                "stages": String(summary.stages),
                "events": String(summary.events),
                "stopped": stop.description,
            ]
            if !source.isEmpty { facts["recording"] = source }
            try writer.finish(otherData: facts)
            return RecordingExport.Result(summary: summary, stop: stop, outputBytes: writer.byteCount, format: .json)
        case .perfetto(let file, let exporter):
            let summary = try exporter.finish(ending: ending)
            try file.finish()
            return RecordingExport.Result(summary: summary, stop: stop, outputBytes: file.byteCount, format: .perfetto,
                                          causesMissed: exporter.writer.causesMissed)
        }
    }
}
