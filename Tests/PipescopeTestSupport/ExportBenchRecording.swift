/// Writes the recording the README's export measurements use (Benchmarks/export-sizes.sh),
/// the shape of Benchmarks' `ExportBench`: long-lived pipelines receiving values (their
/// texts on the events, as a probe of this version sends them), short ones finishing,
/// pipelines cancelled by their sink, each value caused by the one upstream of it
/// (``BusyProgramRecording``'s `export` shape). ``BusyRecording`` is the replay
/// benchmark's; `bench-recording` (Tests/BenchRecording) writes either from the command line.
///
/// ```swift
/// let events = try ExportBenchRecording.write(to: "/tmp/big.pipescope", events: 1_000_000)
/// ```
public enum ExportBenchRecording {
    /// Writes about `events` events (whole batches of about 2,400) to `path`; returns how
    /// many it wrote.
    @discardableResult
    public static func write(to path: String, events target: Int) throws -> Int {
        try BusyProgramRecording.write(to: path, events: target, shape: .export)
    }
}
