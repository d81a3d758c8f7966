/// A packed column as runs: pairs of an entry and how many times in a row it comes
/// (see `PackedBatch.kind_runs` in Resources/pipescope.proto).
///
/// A busy batch is nearly all VALUE events on one thread, most caused by nothing the
/// batch names, so three of its columns repeat one entry thousands of times. As runs
/// they cost a few bytes; a writer sends the runs only when they are shorter.
///
/// ```swift
/// ColumnRuns.shorter([4, 4, 4, 4, 5] as [UInt32])                      // [4, 4, 5, 1]
/// try ColumnRuns.expand([4, 4, 5, 1] as [UInt32], atMost: 5, "kind")   // [4, 4, 4, 4, 5]
/// ```
enum ColumnRuns {
    /// The runs of `column`, or nil when they would not be shorter than it.
    static func shorter<T: FixedWidthInteger>(_ column: [T]) -> [T]? {
        guard var current = column.first else { return nil }
        var runs: [T] = []
        var length: T = 0
        for entry in column {
            if entry == current, length < T.max {
                length += 1
                continue
            }
            runs.append(current)
            runs.append(length)
            guard runs.count < column.count else { return nil }
            current = entry
            length = 1
        }
        runs.append(current)
        runs.append(length)
        return runs.count < column.count ? runs : nil
    }

    /// The column the runs stand for. Runs that are not pairs, have a length of 0, or
    /// add up to more than `atMost` entries (the events that could need one) throw
    /// ``FrameError/malformed(_:)``: a hostile batch cannot make the reader allocate
    /// more than the events it carries.
    static func expand<T: FixedWidthInteger>(_ runs: [T], atMost limit: Int, _ name: String) throws -> [T] {
        guard runs.count % 2 == 0 else {
            throw FrameError.malformed("a packed batch whose \(name) runs are not pairs (\(runs.count) entries)")
        }
        var column: [T] = []
        column.reserveCapacity(min(limit, runs.count * 8))
        var i = 0
        while i < runs.count {
            guard runs[i + 1] > 0 else {
                throw FrameError.malformed("a packed batch with a \(name) run of length 0")
            }
            guard let length = Int(exactly: runs[i + 1]), length <= limit - column.count else {
                throw FrameError.malformed("a packed batch whose \(name) runs add up to more than its \(limit) events")
            }
            column.append(contentsOf: repeatElement(runs[i], count: length))
            i += 2
        }
        return column
    }
}
