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

/// An export as it goes, in any format: the recording's messages in, one at a time
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
    private let output: any TraceOutput

    /// Creates the output (its format from its name unless given). Throws
    /// ``TraceWriteError`` when it cannot be written.
    public init(path: String, format: TraceFormat? = nil, options: ExportOptions = .init()) throws {
        self.path = path
        self.format = format ?? TraceFormat(forPath: path)
        switch self.format {
        case .json: output = try ChromeJSONOutput(path: path, options: options)
        case .perfetto: output = try PerfettoOutput(path: path, options: options)
        }
    }

    /// Takes the next message of the recording, in order.
    public func consume(_ message: Message) throws {
        try output.consume(message)
    }

    /// Stages whose slice is still open (the memory an export holds grows with these).
    public var openStageCount: Int { output.openStageCount }

    /// Ends the trace, saying where the recording stopped when it was cut short, and
    /// puts the file in place.
    public func finish(stop: RecordingEnd, source: String = "") throws -> RecordingExport.Result {
        try output.finish(stop: stop, source: source)
    }
}

/// One format's export as it goes: the walk with the format's writer, and its file.
protocol TraceOutput: AnyObject {
    func consume(_ message: Message) throws
    var openStageCount: Int { get }
    /// Ends the trace (`stop` says where the recording stopped; `source` is its path, or
    /// empty) and puts the file in place.
    func finish(stop: RecordingEnd, source: String) throws -> RecordingExport.Result
}
