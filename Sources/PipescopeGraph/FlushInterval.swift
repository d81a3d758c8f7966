/// How often the probe flushes what the tap buffered into one batch: the probe's
/// schedule, the window in which a stage not watched gets one value described, and the
/// most a crashed program's recording loses. One name for what the probe does and what
/// the inspector tells the user.
///
/// ```swift
/// FlushInterval.milliseconds   // 25
/// FlushInterval.text           // "25 ms"
/// ```
public enum FlushInterval {
    public static let milliseconds = 25

    public static var nanoseconds: Int64 { Int64(milliseconds) * 1_000_000 }

    /// As the inspector's messages say it: "25 ms".
    public static var text: String { "\(milliseconds) ms" }
}
