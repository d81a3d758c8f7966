import Foundation

/// The timeline lanes' times that went to disk with their events (``SortedTimes/store(before:in:)``):
/// closed chunks of a lane's value and request times, written once to a spill file of
/// their own and read back, a chunk at a time, when a column counts them (the last
/// ``cacheSlots`` read are kept).
///
/// A lane keeps every value of its stage for as long as the history keeps the events, and
/// with a spill the history keeps them all: in memory that grew by 4 bytes for every value
/// of every stage still alive (57 MB at 10,000,000 events of the benchmark's recording).
/// In memory stays about 60 bytes a chunk of up to 512 times.
///
/// ```swift
/// let file = SpilledTimes(directory: NSTemporaryDirectory())
/// let at = try file.write([10, 20, 30])
/// file.times(at: at, count: 3)   // [10, 20, 30]
/// ```
public final class SpilledTimes: @unchecked Sendable {
    let directory: String
    private let lock = NSLock()
    private var fd: Int32 = -1
    private var size: Int64 = 0
    /// Chunks read, newest last: by offset.
    private var cache: [(offset: Int64, times: [Int64])] = []
    static let cacheSlots = 64

    init(directory: String) { self.directory = directory }

    deinit { if fd >= 0 { close(fd) } }

    /// Bytes written (a lane's chunk stays until the inspector exits).
    var bytesUsed: Int64 { lock.withLock { size } }

    /// Writes `times` (8 bytes each); returns where.
    func write(_ times: [Int64]) throws -> Int64 {
        try lock.withLock {
            if fd < 0 { fd = try HistoryFiles.make(in: directory, name: "lanes") }
            let at = size
            try times.withUnsafeBytes { try HistoryFiles.writeAll(fd, $0, at: at, in: directory) }
            size += Int64(times.count * 8)
            return at
        }
    }

    /// The `count` times written at `offset` (a short read gives `.min`s: nothing counts
    /// them, as nothing is older).
    func times(at offset: Int64, count: Int) -> [Int64] {
        lock.withLock {
            if let i = cache.firstIndex(where: { $0.offset == offset }) {
                let hit = cache.remove(at: i)
                cache.append(hit)
                return hit.times
            }
            var times = [Int64](repeating: .min, count: count)
            let want = count * 8
            var done = 0
            while done < want {
                let n = times.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress! + done, want - done, off_t(offset) + off_t(done))
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            cache.append((offset, times))
            if cache.count > Self.cacheSlots { cache.removeFirst() }
            return times
        }
    }
}
