import Foundation
#if canImport(Glibc)
import Glibc
import PipescopeWire
#endif

/// A recording file written on a thread of its own, so that whoever appends (the probe's
/// flush, `pipescope record`'s loop) never waits for the disk, and a disk that fails
/// stops the recording instead of the program.
///
/// - ``enqueue(_:)`` only takes a lock and appends to a queue: it never blocks on I/O
///   and never throws. Each chunk reaches the file in one `write` (a flush's frames
///   together), so a kill leaves whole frames and at most one cut one.
/// - The first error (a full disk, a read-only file system, an I/O error), or a queue
///   grown past `limit` because the disk cannot keep up, stops the recording: nothing more
///   is written, later chunks are dropped, and ``failure`` (and `onFailure`, once, on
///   whichever thread found it) says what happened. The file keeps what was written.
/// - Sync policy: `fdatasync` at most once a second, and at most a second after data was
///   written; `fsync` at ``finish(endMark:)``; on the writer's thread. A kill loses nothing the writer wrote (the
///   kernel has it); a power loss loses at most about the last second, as zeros or a cut
///   frame, which readers treat as a cut (``RecordingReader``).
final class RecordingOutput: @unchecked Sendable {
    /// Bytes to write in one `write`, with the events they carry (for the failure's words).
    struct Chunk {
        var bytes: [UInt8]
        var events = 0
        var lastEventNanos: Int64 = 0
        /// Files to remove before the bytes are written (the flight recorder's oldest
        /// segments: deleted first, so the directory never grows past its budget).
        var deletes: [String] = []
        /// A file to write from now on, closing the one written so far (the flight
        /// recorder's next segment), opened after `deletes` and before `bytes`.
        var opens: String?
    }

    /// The file written now (the writer's thread changes it when a chunk `opens` another).
    private(set) var path: String
    private let limit: Int
    private var fd: Int32
    private let onFailure: (@Sendable (RecordingWriter.Failure) -> Void)?

    // Under `condition`:
    private let condition = NSCondition()
    private var queue: [Chunk] = []
    private var queuedBytes = 0
    private var closing = false
    private var done = false
    private var stopped: RecordingWriter.Failure?
    private var events = 0
    private var lastEventNanos: Int64 = 0
    /// Chunks ever queued, and ever written: ``waitUntilWritten()`` waits for the one to
    /// reach the other.
    private var queuedCount = 0
    private var writtenCount = 0

    /// Opens (creates or truncates) `path` and starts the writer's thread. Throws
    /// ``RecordingWriter/WriterError`` when the file cannot be opened.
    init(path: String, limit: Int, onFailure: (@Sendable (RecordingWriter.Failure) -> Void)?) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingWriter.WriterError(path: path, errno: errno) }
        Self.markWriting(fd)
        self.fd = fd
        self.path = path
        self.limit = limit
        self.onFailure = onFailure
        let thread = Thread { [self] in run() }
        thread.name = "pipescope-recording"
        thread.start()
    }

    /// Queues `chunk`; false once the recording has stopped (the chunk is dropped).
    @discardableResult
    func enqueue(_ chunk: Chunk) -> Bool {
        condition.lock()
        guard stopped == nil, !closing else { condition.unlock(); return false }
        guard queuedBytes + chunk.bytes.count <= limit else {
            let waiting = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes"
            let failure = stop(because: "the disk did not keep up: more than \(waiting) waited to be written")
            condition.unlock()
            report(failure)
            return false
        }
        queue.append(chunk)
        queuedBytes += chunk.bytes.count
        queuedCount += 1
        condition.signal()
        condition.unlock()
        return true
    }

    /// Waits until every chunk queued so far is in the file, or the recording stopped:
    /// for a reader of "the file so far" in the same process (tests). Never called on a
    /// program's path.
    func waitUntilWritten() {
        condition.lock()
        let target = queuedCount
        while writtenCount < target, stopped == nil, !done { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued and then `endMark` (unless the recording stopped), syncs and
    /// closes the file, and waits until that is done. Later calls return at once.
    func finish(endMark: [UInt8]) {
        condition.lock()
        if stopped == nil, !closing {
            queue.append(Chunk(bytes: endMark))
            closing = true
            condition.signal()
        }
        while !done { condition.wait() }
        condition.unlock()
    }

    /// Why the recording stopped early, if it did.
    var failure: RecordingWriter.Failure? {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    // MARK: - The writer's thread

    private func run() {
        var lastSync = DispatchTime.now().uptimeNanoseconds
        var unsynced = false
        while true {
            condition.lock()
            while queue.isEmpty, !closing, stopped == nil {
                // Idle: sleep until more comes, or until what was written is due a sync.
                guard unsynced else { condition.wait(); continue }
                let due = lastSync + Self.syncInterval, now = DispatchTime.now().uptimeNanoseconds
                if now >= due { break }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(due - now) / 1e9))
            }
            let chunks = queue
            let closing = self.closing
            queue.removeAll()
            queuedBytes = 0
            let halted = stopped != nil
            condition.unlock()
            if halted { return end(sync: false) }
            for chunk in chunks {
                for file in chunk.deletes { unlink(file) }
                if let next = chunk.opens {
                    // No sync here: the data is the kernel's already (a kill loses none
                    // of it), and the once-a-second sync covers the next file.
                    close(fd)
                    let opened = open(next, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                    let openError = errno
                    condition.lock()
                    path = next
                    condition.unlock()
                    guard opened >= 0 else { fd = -1; return fail(errno: openError) }
                    Self.markWriting(opened)
                    fd = opened
                    unsynced = false
                }
                if let error = Self.writeAll(fd, chunk.bytes) { return fail(errno: error) }
                condition.lock()
                events += chunk.events
                lastEventNanos = max(lastEventNanos, chunk.lastEventNanos)
                writtenCount += 1
                condition.broadcast()
                condition.unlock()
                unsynced = true
            }
            if closing { return end(sync: true) }
            let now = DispatchTime.now().uptimeNanoseconds
            if unsynced, now - lastSync >= Self.syncInterval {
                if fdatasync(fd) != 0, let error = Self.syncFailure(errno) { return fail(errno: error) }
                lastSync = now
                unsynced = false
            }
        }
    }

    /// How often written data is synced: at most once a second, and at most a second
    /// after it was written.
    private static let syncInterval: UInt64 = 1_000_000_000

    private func end(sync: Bool) {
        if fd >= 0 {
            if sync { _ = fsync(fd) }  // a device or pipe cannot sync: nothing to report
            close(fd)
        }
        condition.lock()
        done = true
        condition.broadcast()
        condition.unlock()
    }

    private func fail(errno error: Int32) {
        condition.lock()
        let failure = stop(because: RecordingWriter.WriterError.words(errno: error))
        condition.unlock()
        end(sync: false)
        report(failure)
    }

    /// Under the lock: stops taking chunks, with `reason`. Nil if already stopped.
    private func stop(because reason: String) -> RecordingWriter.Failure? {
        guard stopped == nil else { return nil }
        let failure = RecordingWriter.Failure(path: path, reason: reason, events: events, lastEventNanos: lastEventNanos)
        stopped = failure
        queue.removeAll()
        queuedBytes = 0
        condition.broadcast()
        return failure
    }

    private func report(_ failure: RecordingWriter.Failure?) {
        if let failure { onFailure?(failure) }
    }

    /// Writes all of `bytes`, retrying short writes and interruptions; the errno of a
    /// failure, or nil.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            offset += n
        }
        return nil
    }

    /// Takes the file's exclusive advisory lock, held until the file is closed (or the
    /// process dies, when the kernel lets it go): how a reader tells a recording still being
    /// written from one whose writer stopped without closing it
    /// (``RecordingReader/beingWritten``). A file someone else has locked is written all the
    /// same: the lock only informs.
    ///
    /// A reader asks by taking a shared lock for an instant (``RecordingReader``), and a
    /// reader following the file asks every frame: the exclusive lock is asked again for
    /// up to about 20 ms rather than lost to such an instant. It never waits longer: a lock
    /// held for good is another writer's, and the file is written all the same.
    private static func markWriting(_ fd: Int32) {
        for _ in 0..<20 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK { return }
            usleep(1_000)
        }
    }

    /// A sync error that means the data did not reach the disk (not "cannot sync this").
    private static func syncFailure(_ error: Int32) -> Int32? {
        [EIO, ENOSPC, EDQUOT].contains(error) ? error : nil
    }
}
