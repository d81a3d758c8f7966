import PipescopeClient

/// How a recording that does not end cleanly is described on standard error: the same
/// words from `pipescope replay` and from `pipescope export` (and `record --perfetto`),
/// counting what was read in events, as `record` counts what it wrote, with the time of
/// the last one. A recording that ends with its end mark (its writer closed it) gets no
/// note.
///
/// ```
/// pipescope: crash.pipescope: the recording ends after 41203 events at 12:03:11.402; the program
///   stopped while writing: the last 934 bytes, after byte 1220456, are an incomplete batch. Replaying those events.
/// ```
enum RecordingEnd {
    /// Where a recording stops: "after 41203 events at 12:03:11.402".
    struct Point {
        var events: Int
        /// The last event's wall-clock time (0 when there is none).
        var lastEventNanos: Int64
        /// Bytes of the file up to the end of the last complete message.
        var byte: Int

        var afterEvents: String {
            "after \(counted(events, "event"))" + (lastEventNanos > 0 ? " at \(Recording.clockTime(lastEventNanos))" : "")
        }
    }

    /// The file stops inside a frame: the program was killed while writing it.
    static func cut(_ path: String, at point: Point, bytes: Int) -> String {
        "\(path): the recording ends \(point.afterEvents); the program stopped while writing: the last "
            + "\(counted(bytes, "byte")), after byte \(point.byte), \(bytes == 1 ? "is" : "are") an incomplete batch."
    }

    /// The file ends after a whole message but has no end mark: its writer never closed it.
    static func unfinished(_ path: String, at point: Point) -> String {
        "\(path): the recording ends \(point.afterEvents); the program stopped while writing "
            + "(no end mark after byte \(point.byte): it was killed or crashed, or its disk filled)."
    }

    /// A frame that cannot be read: nothing after it can be.
    static func damaged(_ path: String, at point: Point, reason: String) -> String {
        "\(path) is a damaged recording: at byte \(point.byte), \(point.afterEvents), \(reason). "
            + "Nothing after that can be read."
    }
}
