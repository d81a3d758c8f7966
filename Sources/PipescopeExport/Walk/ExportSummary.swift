/// What an export wrote.
public struct ExportSummary: Equatable, Sendable {
    /// Stage events read from the recording's batches.
    public var events = 0
    /// Stages drawn: one life (a slice) each.
    public var stages = 0
    public var pipelines = 0
    public var values = 0
    /// Arrows: from a cancelling stage to a stage its cancel reached, and (Perfetto) from
    /// the event that caused a value to it.
    public var flows = 0
    public var lints = 0
    /// Stages of the first snapshot that had ended before the recording started: not drawn.
    public var endedBeforeRecording = 0
    /// All trace events written, metadata included.
    public var traceEvents = 0
    /// Trace time 0 and the last event, in nanoseconds since 1970.
    public var originNanos: Int64 = 0
    public var lastEventNanos: Int64 = 0

    public init() {}

    /// The recording's length, in seconds.
    public var seconds: Double { Double(max(0, lastEventNanos - originNanos)) / 1e9 }
}
