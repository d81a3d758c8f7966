import Foundation
import PipescopeGraph

/// The checkpoints of a ``History`` among its events on disk: each graph as bytes
/// (``GraphBytes``) in spill files of their own, read back when a jump lands after one,
/// with the few read most recently kept decoded (a cursor stepping through one span reads
/// its checkpoint once).
///
/// In memory a history keeps only where each one is (``Record``: 24 bytes), not the
/// graph: a checkpoint holds every stage of its moment, ended ones not yet pruned
/// included, so keeping them all would grow with the stages the program ever made.
///
/// Files are made in the spill's directory and unlinked at once, like the spill's others;
/// a file is closed (its space given back) once every checkpoint in it is older than the
/// history's first kept event (``drop(below:)``).
///
/// ```swift
/// let files = SpilledCheckpoints(directory: NSTemporaryDirectory())
/// let record = try files.write(graph, at: 50_000)
/// files.graph(record) == graph   // read back (or from the cache)
/// ```
final class SpilledCheckpoints: @unchecked Sendable {
    /// Where one checkpoint is: its position in the history, its file, offset and length.
    struct Record: Sendable {
        var position: Int
        var file: Int32
        var offset: Int64
        var length: Int
    }

    let directory: String
    /// A new file is started once the current one holds this many bytes.
    let fileBytes: Int64
    private let lock = NSLock()
    /// Descriptors by file number (-1: closed), each file's size, and the newest
    /// checkpoint's position in each (a file goes when that is dropped).
    private var files: [Int32] = []
    private var sizes: [Int64] = []
    private var newest: [Int] = []
    /// The checkpoints read last, decoded, newest last (by file and offset).
    private var cache: [(file: Int32, offset: Int64, graph: Graph)] = []
    static let cacheSize = 4

    init(directory: String, fileBytes: Int64 = 64 << 20) {
        self.directory = directory
        self.fileBytes = max(4_096, fileBytes)
    }

    deinit {
        for fd in files where fd >= 0 { close(fd) }
    }

    /// Bytes on disk now (files not yet closed).
    var bytesUsed: Int64 {
        lock.withLock { zip(files, sizes).reduce(0) { $0 + ($1.0 >= 0 ? $1.1 : 0) } }
    }

    /// Writes `graph`, the history's checkpoint at `position`, appended after the others.
    func write(_ graph: Graph, at position: Int) throws -> Record {
        let bytes = GraphBytes.encode(graph)
        return try lock.withLock {
            if files.isEmpty || files[files.count - 1] < 0 || sizes[sizes.count - 1] >= fileBytes {
                files.append(try HistoryFiles.make(in: directory, name: "checkpoints"))
                sizes.append(0)
                newest.append(position)
            }
            let file = files.count - 1
            let offset = sizes[file]
            try bytes.withUnsafeBytes { try HistoryFiles.writeAll(files[file], $0, at: offset, in: directory) }
            sizes[file] += Int64(bytes.count)
            newest[file] = max(newest[file], position)
            return Record(position: position, file: Int32(file), offset: offset, length: bytes.count)
        }
    }

    /// The graph `record` was written from; nil when it cannot be read back (its file was
    /// dropped, or the disk failed): the caller folds from an earlier one.
    func graph(_ record: Record) -> Graph? {
        lock.withLock {
            if let i = cache.firstIndex(where: { $0.file == record.file && $0.offset == record.offset }) {
                let hit = cache.remove(at: i)
                cache.append(hit)
                return hit.graph
            }
            let file = Int(record.file)
            guard file < files.count, files[file] >= 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: record.length)
            let fd = files[file]
            var done = 0
            while done < record.length {
                let n = bytes.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress! + done, record.length - done, off_t(record.offset) + off_t(done))
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            guard let graph = GraphBytes.decode(bytes) else { return nil }
            cache.append((record.file, record.offset, graph))
            if cache.count > Self.cacheSize { cache.removeFirst() }
            return graph
        }
    }

    /// Closes the files whose checkpoints are all before `position` (the history's first
    /// kept event: none of them can be a jump's start again).
    func drop(below position: Int) {
        lock.withLock {
            // The newest file is still being written: it stays.
            for file in files.indices.dropLast() where files[file] >= 0 && newest[file] < position {
                close(files[file])
                files[file] = -1
                cache.removeAll { $0.file == Int32(file) }
            }
        }
    }
}
