/// Where a live session's history begins: at attach, or earlier, from what the program's
/// flight recorder (`PIPESCOPE_FLIGHT`) kept. The `g` line says it, so a person at the
/// oldest event knows whether anything happened before it.
///
/// ```swift
/// state.reduce(.historyOrigin(.programStart))   // g: "before the first event: the program's start"
/// ```
public enum HistoryOrigin: Equatable, Sendable {
    /// The graph as the inspector found it (or a recording's first snapshot).
    case attach
    /// The program's own start: its flight recorder still keeps its first segment.
    case programStart
    /// The flight recorder's oldest kept event, at this wall-clock time (older ones were
    /// deleted within its budget or window).
    case flightRecorder(oldestNanos: Int64)
}
