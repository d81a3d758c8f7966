import PipescopeModel

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
    /// Snapshots taken so far (``RecordingExport/Result/snapshots``).
    private var snapshots = 0

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
        if case .snapshot = message { snapshots += 1 }
        try output.consume(message)
    }

    /// Stages whose slice is still open (the memory an export holds grows with these).
    public var openStageCount: Int { output.openStageCount }

    /// Ends the trace, saying where the recording stopped when it was cut short, and
    /// puts the file in place.
    public func finish(stop: RecordingEnd, source: String = "") throws -> RecordingExport.Result {
        var result = try output.finish(stop: stop, source: source)
        result.snapshots = snapshots
        return result
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
