import PipescopeModel

/// A Perfetto export as it goes (``TraceExportSession``): the walk drawing with a
/// ``PerfettoWriter`` into a ``PerfettoFileWriter``.
final class PerfettoOutput: TraceOutput {
    private let file: PerfettoFileWriter
    private let walk: TraceWalk<PerfettoWriter>

    init(path: String, options: ExportOptions) throws {
        file = try PerfettoFileWriter(path: path)
        walk = TraceWalk(writer: PerfettoWriter(sequence: PerfettoSequence(file: file)), options: options)
    }

    func consume(_ message: Message) throws { try walk.consume(message) }

    var openStageCount: Int { walk.openStageCount }

    func finish(stop: RecordingEnd, source: String) throws -> RecordingExport.Result {
        let summary = try walk.finish(ending: stop == .complete ? nil : stop.description)
        try file.finish()
        return RecordingExport.Result(summary: summary, stop: stop, outputBytes: file.byteCount, format: .perfetto,
                                      causesMissed: walk.writer.causesMissed)
    }
}
