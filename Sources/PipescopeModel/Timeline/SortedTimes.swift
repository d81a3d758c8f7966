/// Wall-clock times in order, about 4 bytes each instead of 8: a lane's values and
/// requests, kept for as long as the history keeps their events (most of the lanes'
/// memory, which is most of the inspector's after the history's own).
///
/// Times go in chunks of at most ``chunkLimit``. A chunk keeps its first time and the
/// others as nanoseconds after it in 32 bits, which covers 4.29 s: a busy stage's times
/// take 4 bytes each. A chunk whose times spread further while it is still small (a
/// stage that receives a value every few seconds) keeps them whole, 8 bytes each.
/// Counting the times in a span is two binary searches, as over one sorted array.
///
/// ```swift
/// var times = SortedTimes()
/// times.append(10); times.append(20); times.append(20)
/// times.count(from: 15, to: 21)   // 2
/// times.drop(before: 20)          // [20, 20]
/// ```
public struct SortedTimes: Hashable, Sendable {
    private struct Chunk: Sendable {
        /// How many times came before this chunk, counting the ones dropped since: only
        /// differences are read.
        var before: Int
        var base: Int64
        /// Times after `base`, in nanoseconds, while they all fit in 32 bits…
        var near: [UInt32] = []
        /// …else every time whole (`near` then empty).
        var wide: [Int64] = []
        /// On disk instead (`near` and `wide` then empty), once its events are
        /// (``SortedTimes/store(before:in:)``).
        var stored: Stored?

        struct Stored: Sendable {
            var file: SpilledTimes
            var offset: Int64
            var count: Int
            var last: Int64
            var times: [Int64] { file.times(at: offset, count: count) }
        }

        var count: Int { stored?.count ?? (wide.isEmpty ? near.count : wide.count) }
        subscript(i: Int) -> Int64 {
            if let stored { return stored.times[i] }
            return wide.isEmpty ? base &+ Int64(near[i]) : wide[i]
        }
        var last: Int64 { stored?.last ?? self[count - 1] }

        /// Whether `time` can go in: the chunk has room, and the time fits in 32 bits or
        /// the chunk is whole times already or still small enough to become so.
        func takes(_ time: Int64) -> Bool {
            stored == nil && count < SortedTimes.chunkLimit && (!wide.isEmpty || fitsNear(time) || count < SortedTimes.wideningLimit)
        }

        func fitsNear(_ time: Int64) -> Bool { time >= base && time - base <= Int64(UInt32.max) }

        mutating func append(_ time: Int64) {
            if wide.isEmpty, fitsNear(time) {
                near.append(UInt32(time - base))
            } else {
                if wide.isEmpty {
                    wide.reserveCapacity(near.count + 1)
                    for offset in near { wide.append(base &+ Int64(offset)) }
                    near = []
                }
                wide.append(time)
            }
        }

        /// The first position whose time is at or after `time`.
        func firstIndex(notBefore time: Int64) -> Int {
            if let stored {
                // Read once, not at every step of the search.
                let times = stored.times
                var low = 0, high = times.count
                while low < high {
                    let mid = (low + high) / 2
                    if times[mid] < time { low = mid + 1 } else { high = mid }
                }
                return low
            }
            var low = 0, high = count
            while low < high {
                let mid = (low + high) / 2
                if self[mid] < time { low = mid + 1 } else { high = mid }
            }
            return low
        }

        mutating func removeFirst(_ k: Int) {
            if let stored {
                // Back in memory, whole, for what is left of it.
                wide = Array(stored.times.dropFirst(k))
                self.stored = nil
                return
            }
            if wide.isEmpty { near.removeFirst(k) } else { wide.removeFirst(k) }
        }
    }

    static let chunkLimit = 512
    /// A chunk of fewer times than this that meets a time too far for 32 bits keeps its
    /// times whole from then on (a stage with a value every few seconds); a longer one is
    /// closed, and a new chunk starts at that time (a busy stage, 4.29 s a chunk).
    static let wideningLimit = 16

    private var chunks: [Chunk] = []
    /// Chunks before this one were stored (``store(before:in:)``; the first may be back in
    /// memory, what a drop left of it).
    private var stored = 0

    public init() {}

    /// Equal when they hold the same times, however chunked.
    public static func == (a: SortedTimes, b: SortedTimes) -> Bool { a.count == b.count && a.all == b.all }
    public func hash(into hasher: inout Hasher) { hasher.combine(all) }

    public var count: Int { chunks.isEmpty ? 0 : end - chunks[0].before }

    /// The position after the newest time, counted like ``Chunk/before``.
    private var end: Int { chunks.last.map { $0.before + $0.count } ?? 0 }
    public var isEmpty: Bool { chunks.isEmpty }
    public var first: Int64? { chunks.first.map { $0[0] } }
    public var last: Int64? { chunks.last?.last }

    /// Every time, oldest first.
    public var all: [Int64] {
        chunks.flatMap { chunk in chunk.stored?.times ?? (0..<chunk.count).map { chunk[$0] } }
    }

    /// Moves the closed chunks whose times are all before `time` to `file` (their
    /// events went to the history's spill): in memory stays where they are, their count
    /// and last time. One that cannot be written stays in memory.
    mutating func store(before time: Int64, in file: SpilledTimes) {
        // Times are in order: the chunks to store follow those stored before.
        while stored < chunks.count - 1, chunks[stored].last < time {
            let i = stored
            if chunks[i].stored == nil {
                let times = (0..<chunks[i].count).map { chunks[i][$0] }
                guard let offset = try? file.write(times) else { return }
                chunks[i].stored = Chunk.Stored(file: file, offset: offset, count: times.count,
                                                last: times[times.count - 1])
                chunks[i].near = []
                chunks[i].wide = []
            }
            stored += 1
        }
    }

    /// Appends in order: a time earlier than the last (another thread's clock read a
    /// moment before) is kept at the last, so the times stay sorted.
    public mutating func append(_ time: Int64) {
        let time = max(time, last ?? time)
        if let i = chunks.indices.last, chunks[i].takes(time) {
            chunks[i].append(time)
        } else {
            chunks.append(Chunk(before: end, base: time, near: [0]))
        }
    }

    /// How many times are in `[from, to)`.
    public func count(from: Int64, to: Int64) -> Int {
        guard to > from else { return 0 }
        return position(notBefore: to) - position(notBefore: from)
    }

    /// Forgets the times before `time`.
    public mutating func drop(before time: Int64) {
        let gone = chunks.prefix { $0.last < time }.count
        if gone > 0 {
            chunks.removeFirst(gone)
            stored = max(0, stored - gone)
        }
        guard !chunks.isEmpty else { return }
        let k = chunks[0].firstIndex(notBefore: time)
        if k > 0 {
            chunks[0].removeFirst(k)
            chunks[0].before += k
        }
    }

    /// The first time at or after `time`, as a position counted like ``Chunk/before``.
    private func position(notBefore time: Int64) -> Int {
        // The first chunk whose last time is at or after `time`.
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].last < time { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return end }
        return chunks[low].before + chunks[low].firstIndex(notBefore: time)
    }
}
