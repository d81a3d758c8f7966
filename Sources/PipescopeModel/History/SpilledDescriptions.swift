import Foundation
import PipescopeGraph

/// Where the descriptions of the stages whose subscribe event is on disk are (offsets of
/// ``NodeInfoBytes`` in the spill's texts), kept on disk too: one 16-byte record a stage
/// (its id, the offset) in a file of its own, and in memory only the lowest and highest
/// id of every block of ``blockRecords`` records. A dictionary of them in memory grew by
/// 16 bytes and more for every stage the program ever made (about 16 MB at 30,000,000
/// events of the benchmark's recording); this grows by 16 bytes for 256 stages.
///
/// Ids are given in the order stages subscribe, so a block's range is narrow and a
/// lookup reads one block (4 KB, the last few read are kept); a stage found in several
/// (a range overlapping another's) is its newest record.
///
/// ```swift
/// let index = SpilledDescriptions(directory: NSTemporaryDirectory())
/// try index.add([(node: 7, offset: 4_096)])
/// index.offset(of: 7)   // 4_096
/// ```
final class SpilledDescriptions: @unchecked Sendable {
    static let blockRecords = 256
    private static let recordBytes = 16
    private static let cacheSlots = 8

    let directory: String
    private let lock = NSLock()
    private var fd: Int32 = -1
    /// Records written (the file's length over 16).
    private var written = 0
    /// The lowest and highest id of each block of records, the newest block included.
    private var ranges: [(low: NodeID, high: NodeID)] = []
    /// Blocks read, newest last: (block, its records).
    private var cache: [(block: Int, records: [(node: NodeID, offset: Int64)])] = []
    /// Stages described and not removed.
    private var live = 0

    init(directory: String) { self.directory = directory }

    deinit { if fd >= 0 { close(fd) } }

    /// How many stages have a description on disk.
    var count: Int { lock.withLock { live } }

    /// Records where each of `described`'s descriptions was written.
    func add(_ described: [(node: NodeID, offset: Int64)]) throws {
        guard !described.isEmpty else { return }
        try lock.withLock {
            if fd < 0 { fd = try HistoryFiles.make(in: directory, name: "descriptions") }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(described.count * Self.recordBytes)
            for d in described {
                withUnsafeBytes(of: d.node.littleEndian) { bytes.append(contentsOf: $0) }
                withUnsafeBytes(of: d.offset.littleEndian) { bytes.append(contentsOf: $0) }
            }
            try bytes.withUnsafeBytes {
                try HistoryFiles.writeAll(fd, $0, at: Int64(written * Self.recordBytes), in: directory)
            }
            for d in described {
                let block = written / Self.blockRecords
                if block == ranges.count {
                    ranges.append((d.node, d.node))
                } else {
                    ranges[block] = (min(ranges[block].low, d.node), max(ranges[block].high, d.node))
                }
                written += 1
            }
            let touched = (written - described.count) / Self.blockRecords
            cache.removeAll { $0.block >= touched }
            live += described.count
        }
    }

    /// The offset of `node`'s description; nil when it has none on disk.
    func offset(of node: NodeID) -> Int64? {
        lock.withLock { find(node).map(\.offset) }
    }

    /// Points `node`'s record at a description written again (``HistorySpill/rewrite(_:)``).
    func set(_ node: NodeID, offset: Int64) {
        lock.withLock {
            guard let found = find(node) else { return }
            put(offset, at: found.record)
        }
    }

    /// Forgets `node`'s description (its subscribe was evicted).
    func remove(_ node: NodeID) {
        lock.withLock {
            guard let found = find(node) else { return }
            put(-1, at: found.record)
            live -= 1
        }
    }

    // MARK: - Under the lock

    /// The newest record of `node` that is not removed: its number and offset.
    private func find(_ node: NodeID) -> (record: Int, offset: Int64)? {
        for block in ranges.indices.reversed() where ranges[block].low <= node && node <= ranges[block].high {
            let records = self.records(block)
            if let k = records.lastIndex(where: { $0.node == node }) {
                guard records[k].offset >= 0 else { return nil }
                return (block * Self.blockRecords + k, records[k].offset)
            }
        }
        return nil
    }

    private func records(_ block: Int) -> [(node: NodeID, offset: Int64)] {
        if let i = cache.firstIndex(where: { $0.block == block }) {
            let hit = cache.remove(at: i)
            cache.append(hit)
            return hit.records
        }
        let first = block * Self.blockRecords
        let n = min(Self.blockRecords, written - first)
        var raw = [UInt8](repeating: 0, count: n * Self.recordBytes)
        let got = raw.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(first * Self.recordBytes)) }
        var records: [(node: NodeID, offset: Int64)] = []
        if got == raw.count {
            records.reserveCapacity(n)
            raw.withUnsafeBytes { bytes in
                for k in 0..<n {
                    let node = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: k * 16, as: UInt64.self))
                    let offset = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: k * 16 + 8, as: Int64.self))
                    records.append((node, offset))
                }
            }
        }
        cache.append((block, records))
        if cache.count > Self.cacheSlots { cache.removeFirst() }
        return records
    }

    private func put(_ offset: Int64, at record: Int) {
        var value = offset.littleEndian
        _ = withUnsafeBytes(of: &value) { pwrite(fd, $0.baseAddress, 8, off_t(record * Self.recordBytes + 8)) }
        let block = record / Self.blockRecords
        if let i = cache.firstIndex(where: { $0.block == block }) {
            cache[i].records[record - block * Self.blockRecords].offset = offset
        }
    }
}
