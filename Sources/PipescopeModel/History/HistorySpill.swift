import Foundation
import PipescopeGraph

/// The part of a ``History`` that left memory: its entries in files of fixed-size
/// records (the 40-byte ``HistoryEntry``, so the event at index `i` is at byte `40·i` of
/// its segment), and the long texts of those events in files of their own (the entry
/// keeps the text's offset, see ``HistoryEntry/spilled(textAt:)``).
///
/// The files are made in ``Options/directory`` and unlinked at once: nothing is left
/// on disk after the inspector exits, however it exits (a quit, an error, a signal, a
/// crash), and the space is the system's again when the last descriptor closes.
/// Reading is by `pread`, through a small cache of blocks of entries.
///
/// Files are segments (``Options/segmentEntries`` entries, or ``Options/segmentTextBytes``
/// bytes of text), so a history over its disk budget (``Options/budgetBytes``) drops its
/// oldest segment and the space is given back.
///
/// ```swift
/// var history = History()
/// history.spill = HistorySpill.Options.fromEnvironment()   // events beyond `limit` go to disk
/// ```
///
/// Copies of a history share its spill (a class): only one of them goes on appending
/// (the app's one state does); a copy that finds the spill written past its own window
/// starts a spill of its own (``History``'s `spillOut`).
public final class HistorySpill: @unchecked Sendable {
    /// Where the spill files are made, how big they grow, and the disk budget.
    public struct Options: Sendable, Equatable {
        /// The directory the (immediately unlinked) files are made in.
        public var directory: String
        /// The most bytes the spill may use on disk; past it the oldest events are dropped
        /// a segment at a time, and history starts later.
        public var budgetBytes: Int64
        /// Entries per entries file (40 bytes each: 1 Mi entries make 40 MiB).
        public var segmentEntries: Int
        /// Bytes per texts file.
        public var segmentTextBytes: Int

        public static let defaultBudget: Int64 = 2 << 30

        public init(directory: String = NSTemporaryDirectory(), budgetBytes: Int64 = Options.defaultBudget,
                    segmentEntries: Int = 1 << 20, segmentTextBytes: Int = 64 << 20) {
            self.directory = directory
            self.budgetBytes = budgetBytes
            self.segmentEntries = max(1_024, segmentEntries)
            self.segmentTextBytes = max(4_096, segmentTextBytes)
        }

        /// The directory from `PIPESCOPE_HISTORY_DIR` (else the temporary directory), the
        /// budget from `PIPESCOPE_HISTORY_BUDGET_MB` (else 2 GiB).
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
            -> Options {
            var options = Options()
            if let dir = environment["PIPESCOPE_HISTORY_DIR"], !dir.isEmpty { options.directory = dir }
            let (mb, problem) = EnvironmentNumber.read("PIPESCOPE_HISTORY_BUDGET_MB", in: environment,
                                                       default: Int64(Options.defaultBudget >> 20), minimum: 0,
                                                       exclusive: true, unit: "megabytes")
            if let problem { EnvironmentNumber.say(problem) }
            options.budgetBytes = mb << 20
            return options
        }
    }

    /// Why a spill file could not be made: the history then stays in memory only (as
    /// before), and the screen says history starts later.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let options: Options
    /// The history's checkpoints among the events on disk (``SpilledCheckpoints``).
    let checkpoints: SpilledCheckpoints
    /// Where the descriptions of the stages subscribed among the events on disk are.
    let descriptions: SpilledDescriptions
    /// The timeline lanes' times of the events on disk (``SpilledTimes``).
    public let laneTimes: SpilledTimes
    private let lock = NSLock()
    /// Entries files by segment number (-1: dropped).
    private var entryFiles: [Int32] = []
    private var textFiles: [Int32] = []
    /// Indices below this are on disk (from ``firstIndex``).
    private var written = 0
    /// The first index still on disk (earlier segments were dropped for the budget).
    private var firstIndex = 0
    /// The next text's offset, and the first offset still on disk.
    private var textEnd: Int64 = 0
    private var firstText: Int64 = 0
    /// The last entry index whose text is in each texts segment: a texts segment goes when
    /// its entries have.
    private var lastIndexWithText: [Int] = []
    /// Blocks of entries read, direct-mapped by block number.
    private var cache: [(block: Int, entries: [HistoryEntry])?]
    private static let blockEntries = 1_024
    private static let cacheSlots = 64

    /// A spill for entries from index `first` on (the events before it were evicted).
    public init(_ options: Options, from first: Int = 0) {
        self.options = options
        written = first
        firstIndex = first
        checkpoints = SpilledCheckpoints(directory: options.directory)
        descriptions = SpilledDescriptions(directory: options.directory)
        laneTimes = SpilledTimes(directory: options.directory)
        cache = Array(repeating: nil, count: Self.cacheSlots)
    }

    deinit {
        for fd in entryFiles + textFiles where fd >= 0 { close(fd) }
    }

    /// Entries on disk end here (an index: the event at position `p` is index `p - 1`).
    var end: Int { lock.withLock { written } }

    /// Bytes the spill holds on disk now: its events, texts, checkpoints and the lanes'
    /// times (those last are not counted against the budget: they stay until exit).
    public var bytesUsed: Int64 {
        let graphs = checkpoints.bytesUsed + laneTimes.bytesUsed
        return lock.withLock {
            Int64(written - firstIndex) * Int64(MemoryLayout<HistoryEntry>.stride) + (textEnd - firstText) + graphs
        }
    }

    /// Whether the spill is over its budget with a whole segment it could drop below `index`.
    func overBudget(keeping index: Int) -> Int? {
        let graphs = checkpoints.bytesUsed
        return lock.withLock {
            let used = Int64(written - firstIndex) * Int64(MemoryLayout<HistoryEntry>.stride) + (textEnd - firstText)
                + graphs
            guard used > options.budgetBytes else { return nil }
            let next = (firstIndex / options.segmentEntries + 1) * options.segmentEntries
            return next <= min(index, written) ? next : nil
        }
    }

    /// Writes `entries` (their texts with them) as indices `index…`: appended after what
    /// is written, so `index` must be ``end``. `blobs` (a spilled subscribe's stage
    /// description, by its entry's index) go beside the texts; their offsets are returned
    /// in the same order.
    func write(_ entries: [HistoryEntry], texts: [Int: String], blobs: [(index: Int, bytes: [UInt8])] = [],
               at index: Int) throws -> [Int64] {
        try lock.withLock {
            precondition(index == written, "a spill is written in order")
            var entries = entries
            for (offset, entry) in entries.enumerated() where entry.hasText && !entry.textInline {
                let at = try append(Array((texts[index + offset] ?? "").utf8), index: index + offset)
                entries[offset] = entry.spilled(textAt: at)
            }
            let offsets = try blobs.map { try append($0.bytes, index: $0.index) }
            var done = 0
            while done < entries.count {
                let i = index + done
                let segment = i / options.segmentEntries
                let inSegment = i % options.segmentEntries
                let count = min(entries.count - done, options.segmentEntries - inSegment)
                let fd = try file(segment, in: &entryFiles, name: "entries")
                let stride = MemoryLayout<HistoryEntry>.stride
                try entries[done..<(done + count)].withUnsafeBytes { bytes in
                    try writeAll(fd, bytes, at: inSegment * stride)
                }
                done += count
            }
            written = index + entries.count
            return offsets
        }
    }

    /// Writes `bytes` again (a stage description that learnt where it was made), kept as
    /// long as the newest entry on disk.
    func rewrite(_ bytes: [UInt8]) throws -> Int64 {
        try lock.withLock { try append(bytes, index: max(written - 1, firstIndex)) }
    }

    /// The entry at `index` (on disk: ``end`` and the first kept index bound it).
    func entry(_ index: Int) -> HistoryEntry {
        lock.withLock {
            let block = index / Self.blockEntries
            let slot = block % Self.cacheSlots
            if let cached = cache[slot], cached.block == block { return cached.entries[index - block * Self.blockEntries] }
            let from = block * Self.blockEntries
            let entries = read(from..<min(from + Self.blockEntries, written))
            cache[slot] = (block, entries)
            return entries[index - from]
        }
    }

    /// The entries at `range` (all on disk), read at once: a jump's fold.
    func entries(_ range: Range<Int>) -> [HistoryEntry] {
        lock.withLock { read(range) }
    }

    /// The text an entry keeps the offset of.
    func text(at offset: Int64) -> String {
        String(decoding: bytes(at: offset), as: UTF8.self)
    }

    /// The bytes written at `offset` (a text, or a stage description); none when they
    /// are no longer on disk.
    func bytes(at offset: Int64) -> [UInt8] {
        lock.withLock {
            guard offset >= firstText, offset < textEnd else { return [] }
            let segment = Int(offset / Int64(options.segmentTextBytes))
            guard segment < textFiles.count, textFiles[segment] >= 0 else { return [] }
            let at = Int(offset % Int64(options.segmentTextBytes))
            var length: UInt32 = 0
            guard pread(textFiles[segment], &length, 4, off_t(at)) == 4 else { return [] }
            var bytes = [UInt8](repeating: 0, count: Int(UInt32(littleEndian: length)))
            let n = bytes.withUnsafeMutableBytes { pread(textFiles[segment], $0.baseAddress, $0.count, off_t(at + 4)) }
            return n == bytes.count ? bytes : []
        }
    }

    /// Drops the entries below `index` (a segment boundary from ``overBudget(keeping:)``)
    /// and the texts only they used: their files are closed, the space given back.
    func drop(below index: Int) {
        checkpoints.drop(below: index + 1)
        lock.withLock {
            while firstIndex + options.segmentEntries <= index {
                let segment = firstIndex / options.segmentEntries
                if segment < entryFiles.count, entryFiles[segment] >= 0 {
                    close(entryFiles[segment])
                    entryFiles[segment] = -1
                }
                firstIndex = (segment + 1) * options.segmentEntries
            }
            for i in cache.indices {
                if let block = cache[i]?.block, block * Self.blockEntries < firstIndex { cache[i] = nil }
            }
            var segment = Int(firstText / Int64(options.segmentTextBytes))
            while segment < lastIndexWithText.count - 1, lastIndexWithText[segment] < firstIndex {
                if textFiles[segment] >= 0 {
                    close(textFiles[segment])
                    textFiles[segment] = -1
                }
                segment += 1
                firstText = Int64(segment) * Int64(options.segmentTextBytes)
            }
        }
    }

    // MARK: - Under the lock

    private func read(_ range: Range<Int>) -> [HistoryEntry] {
        guard !range.isEmpty else { return [] }
        let stride = MemoryLayout<HistoryEntry>.stride
        return [HistoryEntry](unsafeUninitializedCapacity: range.count) { buffer, count in
            var done = 0
            let raw = UnsafeMutableRawBufferPointer(buffer)
            while done < range.count {
                let i = range.lowerBound + done
                let segment = i / options.segmentEntries
                let inSegment = i % options.segmentEntries
                let n = min(range.count - done, options.segmentEntries - inSegment)
                guard segment < entryFiles.count, entryFiles[segment] >= 0 else { break }
                let got = pread(entryFiles[segment], raw.baseAddress! + done * stride, n * stride, off_t(inSegment * stride))
                guard got == n * stride else { break }
                done += n
            }
            // A short read (a dropped segment, a failing disk) must not hand back garbage.
            if done < range.count {
                for k in done..<range.count {
                    (buffer.baseAddress! + k).initialize(to: HistoryEntry(StageEvent(.unknown, node: 0, time: 0)))
                }
            }
            count = range.count
        }
    }

    private func append(_ bytes: [UInt8], index: Int) throws -> Int64 {
        var bytes = bytes
        if bytes.count > options.segmentTextBytes - 4 { bytes.removeLast(bytes.count - (options.segmentTextBytes - 4)) }
        let size = Int64(4 + bytes.count)  // its length, then its UTF-8 bytes
        let segmentSize = Int64(options.segmentTextBytes)
        // A text is never split across files.
        if textEnd / segmentSize != (textEnd + size - 1) / segmentSize { textEnd = (textEnd / segmentSize + 1) * segmentSize }
        let segment = Int(textEnd / segmentSize)
        let fd = try file(segment, in: &textFiles, name: "texts")
        while lastIndexWithText.count <= segment { lastIndexWithText.append(-1) }
        lastIndexWithText[segment] = max(lastIndexWithText[segment], index)
        var record = withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { Array($0) }
        record += bytes
        let at = textEnd
        try record.withUnsafeBytes { try writeAll(fd, $0, at: Int(at % segmentSize)) }
        textEnd += size
        return at
    }

    /// Segment `segment`'s file, made (and unlinked) when first written.
    private func file(_ segment: Int, in files: inout [Int32], name: String) throws -> Int32 {
        while files.count <= segment { files.append(-1) }
        if files[segment] < 0 { files[segment] = try HistoryFiles.make(in: options.directory, name: name) }
        return files[segment]
    }

    private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        try HistoryFiles.writeAll(fd, bytes, at: Int64(offset), in: options.directory)
    }
}
