/// A count with its noun in agreement, for the sentences pipescope prints: "1 event",
/// "3 events", "1 pipeline", "0 stages".
///
/// ```swift
/// counted(1, "pipeline")              // "1 pipeline"
/// counted(52, "stale socket")          // "52 stale sockets"
/// counted(2, "match", plural: "matches")
/// ```
func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
}

func counted(_ count: UInt64, _ noun: String, plural: String? = nil) -> String {
    counted(Int(clamping: count), noun, plural: plural)
}

/// A number as a person typed it: "-1", "2.5" (not "-1.0").
func plainNumber(_ value: Double) -> String {
    value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}
