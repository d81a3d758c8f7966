/// How a recording that does not end cleanly is described on standard error: the same
/// words from `pipescope replay` and from `pipescope export` (and `record --perfetto`),
/// counting what was read in events, as `record` counts what it wrote.
///
/// ```
/// pipescope: crash.pipescope ends in the middle of a message (the program stopped while writing it):
///   1234 events were read, and the last 934 bytes were cut off. Replaying those events.
/// ```
enum RecordingEnd {
    /// The file stops inside a frame: the program was killed while writing it.
    static func cut(_ path: String, events: Int, bytes: Int) -> String {
        "\(path) ends in the middle of a message (the program stopped while writing it): "
            + "\(counted(events, "event")) \(events == 1 ? "was" : "were") read, and the last "
            + "\(counted(bytes, "byte")) \(bytes == 1 ? "was" : "were") cut off."
    }

    /// A frame that cannot be read: nothing after it can be.
    static func damaged(_ path: String, events: Int, atByte offset: Int, reason: String) -> String {
        "\(path) is a damaged recording: at byte \(offset), after \(counted(events, "event")), \(reason). "
            + "Nothing after that can be read."
    }
}
