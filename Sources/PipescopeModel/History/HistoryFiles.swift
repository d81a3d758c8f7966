import Foundation

/// Making and writing the history's spill files (entries, texts, checkpoints): each made
/// in the spill's directory and unlinked at once, so nothing stays on disk after the
/// inspector exits, however it exits.
enum HistoryFiles {
    static func make(in directory: String, name: String) throws -> Int32 {
        var template = Array((directory + "/pipescope-history-\(name)-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw HistorySpill.Failure(description: "could not make a history file in \(directory): "
                + String(cString: strerror(errno)) + " (set PIPESCOPE_HISTORY_DIR to a writable directory)")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, in directory: String) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw HistorySpill.Failure(description: "could not write the history to \(directory): "
                    + String(cString: strerror(errno)) + " (set PIPESCOPE_HISTORY_DIR or PIPESCOPE_HISTORY_BUDGET_MB)")
            }
            done += n
        }
    }
}
