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
        column.withUnsafeBufferPointer { column in
            guard !column.isEmpty else { return nil }
            // Counted first, in a loop that only compares neighbours: most columns are
            // one long run or none (kinds, threads, causes of a busy batch), and either
            // way the runs are then made once or not at all.
            var changes = 0
            for i in 1..<column.count where column[i] != column[i - 1] { changes += 1 }
            guard 2 * (changes + 1) < column.count else { return nil }
            var runs: [T] = []
            runs.reserveCapacity(2 * (changes + 1))
            // A run longer than T.max (only a small type's) is split.
            let longest = Int(exactly: T.max) ?? Int.max
            func add(_ entry: T, _ length: Int) {
                var left = length
                while left > 0 {
                    let piece = min(left, longest)
                    runs.append(entry)
                    runs.append(T(piece))
                    left -= piece
                }
            }
            var start = 0
            for i in 1..<column.count where column[i] != column[i - 1] {
                add(column[i - 1], i - start)
                start = i
            }
            add(column[column.count - 1], column.count - start)
            // Split runs can make more runs than there were changes.
            return runs.count < column.count ? runs : nil
        }
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
