import Foundation

/// Streams a Perfetto trace into a file: each packet as one `Trace.packet` field (tag,
/// length, bytes), so the file is a valid `Trace` after every packet. Memory holds one
/// buffer of about a megabyte, however long the trace.
///
/// As with ``TraceFileWriter``, the file appears at `path` only when ``finish()``
/// succeeds: until then the packets go to a temporary file beside it, so an interrupted
/// export leaves no half file; `-` writes to standard output. Errors are
/// ``TraceFileWriter/WriteError``s, which say what to do.
///
/// ```swift
/// let file = try PerfettoFileWriter(path: "app.perfetto-trace")
/// var packet = ProtoWriter()
/// packet.varint(PerfettoSchema.TracePacket.timestamp, 1_000)
/// try file.write(packet: packet.bytes)
/// try file.finish()
/// ```
final class PerfettoFileWriter {
    let path: String
    /// Bytes written so far, and packets.
    private(set) var byteCount = 0
    private(set) var packetCount = 0

    private let temporaryPath: String?
    private let handle: FileHandle
    private var buffer = ProtoWriter(capacity: 1 << 20)
    private var finished = false
    static let flushBytes = 1 << 20

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
            throw TraceFileWriter.WriteError(path: path, reason: "it is a directory")
        }
        let directory = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TraceFileWriter.WriteError(path: path, reason: "the directory \(directory) does not exist")
        }
        let temporary = directory + "/." + url.lastPathComponent + ".\(getpid()).partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw TraceFileWriter.WriteError(path: path, reason: "the directory \(directory) is not writable")
        }
        temporaryPath = temporary
        self.handle = handle
    }

    deinit {
        if !finished, let temporaryPath {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporaryPath)
        }
    }

    /// Appends one encoded TracePacket.
    func write(packet: [UInt8]) throws {
        buffer.message(PerfettoSchema.Trace.packet, encoded: packet)
        packetCount += 1
        if buffer.bytes.count >= Self.flushBytes { try flush() }
    }

    /// Writes what is buffered and puts the file in place.
    func finish() throws {
        try flush()
        finished = true
        guard let temporaryPath else { return }
        do {
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporaryPath, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw TraceFileWriter.WriteError(path: path, reason: "it could not be put in place (\(error.localizedDescription))")
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try buffer.bytes.withUnsafeBufferPointer { try handle.write(contentsOf: Data(buffer: $0)) }
        } catch {
            throw TraceFileWriter.WriteError(path: path, reason: "writing failed (\(error.localizedDescription)); is the disk full?")
        }
        byteCount += buffer.bytes.count
        buffer.removeAll()
    }
}
