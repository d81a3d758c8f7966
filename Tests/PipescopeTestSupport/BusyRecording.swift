/// Writes a recording of a busy program of any length, as a probe records one: every
/// stage with its subscribe event, 20 long-lived `subject → map → filter → sink`
/// pipelines receiving values (numbers, and every 16th a description longer than the
/// history keeps inline), short `Just → map → sink` pipelines finishing, and pipelines
/// cancelled by their sink, each value caused by the one upstream of it
/// (``BusyProgramRecording``'s `busy` shape).
///
/// ```swift
/// let events = try BusyRecording.write(to: "/tmp/busy.pipescope", events: 10_000_000)
/// ```
public enum BusyRecording {
    /// Writes about `events` events (whole batches of 2,400 or so) to `path`; returns how
    /// many it wrote.
    @discardableResult
    public static func write(to path: String, events target: Int) throws -> Int {
        try BusyProgramRecording.write(to: path, events: target, shape: .busy)
    }
}
