import Foundation

/// Where a trace is written, in any format: a temporary file beside `path` until
/// ``putInPlace()``, so an interrupted export leaves no half file (the temporary file
/// goes with the object); or standard output for `-`.
///
/// ```swift
/// let output = try TraceOutputFile(path: "app.json")
/// try output.write(Data("{}".utf8))
/// try output.putInPlace()
/// ```
final class TraceOutputFile {
    let path: String
    /// Bytes written so far.
    private(set) var byteCount = 0
    private let temporaryPath: String?
    private let handle: FileHandle
    private var placed = false

    /// Creates the temporary file. Throws ``TraceWriteError`` when the directory is
    /// missing or not writable, or `path` is a directory.
    init(path: String) throws {
        self.path = path
        if path == "-" {
            temporaryPath = nil
            handle = FileHandle.standardOutput
            return
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw TraceWriteError(path: path, reason: "it is a directory")
        }
        let directory = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TraceWriteError(path: path, reason: "the directory \(directory) does not exist")
        }
        let temporary = directory + "/." + url.lastPathComponent + ".\(getpid()).partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw TraceWriteError(path: path, reason: "the directory \(directory) is not writable")
        }
        temporaryPath = temporary
        self.handle = handle
    }

    deinit {
        if !placed, let temporaryPath {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporaryPath)
        }
    }

    func write(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw TraceWriteError(path: path, reason: "writing failed (\(error.localizedDescription)); is the disk full?")
        }
        byteCount += data.count
    }

    /// Closes the file and moves it to `path` (replacing what was there).
    func putInPlace() throws {
        placed = true
        guard let temporaryPath else { return }
        do {
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporaryPath, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw TraceWriteError(path: path, reason: "it could not be put in place (\(error.localizedDescription))")
        }
    }
}

/// A trace could not be written: says where, why, and what to do.
public struct TraceWriteError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var reason: String

    public var description: String {
        "cannot write the trace to \(path): \(reason). Choose another file with -o."
    }
}
