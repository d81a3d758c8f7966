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
