import PipescopeModel

/// A Chrome JSON export as it goes (``TraceExportSession``): the walk drawing with a
/// ``ChromeJSONWriter`` into a ``TraceFileWriter``, whose `otherData` says what was
/// exported from where.
final class ChromeJSONOutput: TraceOutput {
    private let file: TraceFileWriter
    private let walk: TraceWalk<ChromeJSONWriter>

    init(path: String, options: ExportOptions) throws {
        file = try TraceFileWriter(path: path)
        walk = TraceWalk(writer: ChromeJSONWriter(sink: file), options: options)
    }

    func consume(_ message: Message) throws { try walk.consume(message) }

    var openStageCount: Int { walk.openStageCount }

    func finish(stop: RecordingEnd, source: String) throws -> RecordingExport.Result {
        let summary = try walk.finish(ending: stop == .complete ? nil : stop.description)
        var facts: [String: String] = [
            "exported_by": "pipescope export",
            "stages": String(summary.stages),
            "events": String(summary.events),
            "stopped": stop.description,
        ]
        if !source.isEmpty { facts["recording"] = source }
        try file.finish(otherData: facts)
        return RecordingExport.Result(summary: summary, stop: stop, outputBytes: file.byteCount, format: .json)
    }
}
