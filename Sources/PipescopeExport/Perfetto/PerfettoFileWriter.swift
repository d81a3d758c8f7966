import CZlib
import Foundation

/// Streams a Perfetto trace into a file, compressed as Perfetto compresses its own traces
/// (`TraceConfig.compression_type = DEFLATE`): the packets (each a `Trace.packet` field:
/// tag, length, bytes) gather in a chunk of about 256 KiB, which is deflated (zlib) into
/// one packet's `compressed_packets`; trace_processor and ui.perfetto.dev inflate them
/// as they read, in order, so the sequence's interning is unchanged. A packet too big
/// for a compressed packet's 512 KB limit is written as it is. With `compression: nil`
/// every packet is written as it is. The file is a valid `Trace` after every chunk.
/// Memory holds the chunk and one buffer of about a megabyte, however long the trace.
///
/// The compression and the writes run on a queue of their own, a few chunks behind the
/// exporter (at most ``chunksInFlight`` wait), so they take the second core; that queue
/// alone touches the buffer, the deflater, the file and the packets made there
/// (``enqueue(_:)``) until ``finish()`` waits for it (hence `@unchecked Sendable`).
///
/// As with ``TraceFileWriter``, the file appears at `path` only when ``finish()``
/// succeeds: until then the packets go to a temporary file beside it, so an interrupted
/// export leaves no half file; `-` writes to standard output. Errors are
/// ``TraceWriteError``s, which say what to do.
///
/// ```swift
/// let file = try PerfettoFileWriter(path: "app.perfetto-trace")
/// var packet = ProtoWriter()
/// packet.varint(PerfettoSchema.TracePacket.timestamp, 1_000)
/// try file.write(packet: packet.bytes)
/// try file.finish()
/// ```
final class PerfettoFileWriter: @unchecked Sendable {
    let path: String
    /// Bytes written so far, and packets.
    var byteCount: Int { output.byteCount }
    private(set) var packetCount = 0

    private let output: TraceOutputFile
    private var buffer = ProtoWriter(capacity: 1 << 20)
    static let flushBytes = 1 << 20

    /// The deflate level (zlib's 1 to 9), or nil to write packets uncompressed.
    let compression: Int32?
    /// Packets waiting to be compressed (`Trace.packet` fields), and their deflater.
    private var chunk = ProtoWriter(capacity: PerfettoFileWriter.chunkBytes + 4096)
    /// The packets made on the queue (``enqueue(_:)``), waiting there to be compressed.
    private var queueChunk = ProtoWriter(capacity: 0)
    private var deflater: Deflater?
    /// Whether the chunk holds track descriptors (``write(descriptor:)``).
    private var tracksDescribed = false
    /// Bytes of packets gathered before they are compressed; no chunk grows past
    /// `maxChunkBytes`, so its compressed packet stays under Perfetto's 512 KB.
    static let chunkBytes = 256 << 10
    static let maxChunkBytes = 448 << 10
    /// The level the export uses: zlib's fastest, which already makes the file about a
    /// tenth of the uncompressed one (Benchmarks/export-sizes.sh).
    static let defaultLevel: Int32 = 1
    /// Compressed packets written.
    private(set) var compressedPacketCount = 0
    /// Where the compression runs, how many chunks may wait for it, and its first error.
    private let queue = DispatchQueue(label: "pipescope.perfetto-deflate")
    static let chunksInFlight = 4
    private let inFlight = DispatchSemaphore(value: PerfettoFileWriter.chunksInFlight)
    private let failureLock = NSLock()
    private var failure: Error?

    init(path: String, compression: Int32? = PerfettoFileWriter.defaultLevel) throws {
        self.path = path
        self.compression = compression
        if let compression { deflater = Deflater(level: compression, capacity: Self.maxChunkBytes) }
        output = try TraceOutputFile(path: path)
    }

    /// Appends one encoded TracePacket.
    func write(packet: [UInt8]) throws {
        packetCount += 1
        guard deflater != nil else {
            buffer.message(PerfettoSchema.Trace.packet, encoded: packet)
            if buffer.bytes.count >= Self.flushBytes { try flush() }
            return
        }
        let size = 1 + ProtoWriter.varintSize(UInt64(packet.count)) + packet.count
        if !chunk.isEmpty, chunk.bytes.count + size > Self.maxChunkBytes { try compressChunk() }
        if size > Self.maxChunkBytes {
            try onQueue { writer in
                writer.buffer.message(PerfettoSchema.Trace.packet, encoded: packet)
                if writer.buffer.bytes.count >= Self.flushBytes { try writer.flush() }
            }
            return
        }
        chunk.message(PerfettoSchema.Trace.packet, encoded: packet)
        if chunk.bytes.count >= Self.chunkBytes { try compressChunk() }
    }

    /// Hands the chunk to the queue, which deflates it into one packet's
    /// `compressed_packets`.
    private func compressChunk() throws {
        guard !chunk.isEmpty, deflater != nil else { return }
        let input = chunk.bytes
        chunk = ProtoWriter(capacity: Self.chunkBytes + 4096)
        try onQueue { try $0.deflate(input) }
    }

    /// On the queue: one chunk of packets into one compressed packet.
    private func deflate(_ input: [UInt8]) throws {
        let ok = input.withUnsafeBufferPointer { input in
            deflater!.compress(input) { compressed in
                let inner = 2 + ProtoWriter.varintSize(UInt64(compressed.count)) + compressed.count
                buffer.rawVarint(UInt64(PerfettoSchema.Trace.packet << 3 | 2))
                buffer.rawVarint(UInt64(inner))
                buffer.data(PerfettoSchema.TracePacket.compressedPackets, compressed)
            }
        }
        guard ok else { throw TraceWriteError(path: path, reason: "compressing its packets failed (zlib)") }
        compressedPacketCount += 1
        if buffer.bytes.count >= Self.flushBytes { try flush() }
    }

    // MARK: - Packets made on the queue

    /// Whether packets can be made on the queue (``enqueue(_:)``): when they are
    /// compressed. Uncompressed, everything is written on the caller's thread.
    var hasQueue: Bool { deflater != nil }

    /// Runs `work` on the queue, in order with the chunks handed to it; `work` appends
    /// packets with ``writeOnQueue(packet:)``. The packets it makes gather in a chunk of
    /// their own, so they interleave with the caller's by whole chunks: a packet
    /// sequence written only from the queue (or only from the caller) keeps its order.
    ///
    /// Track descriptors written since the last chunk go out first: a packet made on the
    /// queue may be an event on a track described since, and Perfetto's import wants a
    /// track described before its events.
    func enqueue(_ work: @escaping @Sendable () throws -> Void) throws {
        if tracksDescribed {
            tracksDescribed = false
            try compressChunk()
        }
        try onQueue { _ in try work() }
    }

    /// Appends one encoded TracePacket holding a TrackDescriptor (``write(packet:)``).
    func write(descriptor packet: [UInt8]) throws {
        try write(packet: packet)
        tracksDescribed = deflater != nil
    }

    /// On the queue (inside ``enqueue(_:)``'s work): appends one encoded TracePacket to
    /// the queue's own chunk.
    func writeOnQueue(packet: [UInt8]) throws {
        let size = 1 + ProtoWriter.varintSize(UInt64(packet.count)) + packet.count
        if !queueChunk.isEmpty, queueChunk.bytes.count + size > Self.maxChunkBytes { try deflateQueueChunk() }
        if size > Self.maxChunkBytes {
            buffer.message(PerfettoSchema.Trace.packet, encoded: packet)
            if buffer.bytes.count >= Self.flushBytes { try flush() }
            return
        }
        queueChunk.message(PerfettoSchema.Trace.packet, encoded: packet)
        if queueChunk.bytes.count >= Self.chunkBytes { try deflateQueueChunk() }
    }

    /// On the queue (inside ``enqueue(_:)``'s work): appends one TracePacket, its fields
    /// encoded by `build` straight into the queue's chunk.
    func writeOnQueue(_ build: (inout ProtoWriter) -> Void) throws {
        let before = queueChunk.bytes.count
        let start = queueChunk.beginMessage(PerfettoSchema.Trace.packet)
        build(&queueChunk)
        queueChunk.endMessage(start)
        if queueChunk.bytes.count >= Self.chunkBytes, queueChunk.bytes.count <= Self.maxChunkBytes {
            try deflateQueueChunk()
        } else if queueChunk.bytes.count > Self.maxChunkBytes {
            // Too much for one compressed packet: what came before goes alone, and the new
            // packet starts the next chunk, or is written as it is if it is too big for any.
            let packet = Array(queueChunk.bytes[before...])
            queueChunk.truncate(to: before)
            try deflateQueueChunk()
            if packet.count > Self.maxChunkBytes {
                buffer.append(packet)
                if buffer.bytes.count >= Self.flushBytes { try flush() }
            } else {
                queueChunk.append(packet)
            }
        }
    }

    private func deflateQueueChunk() throws {
        guard !queueChunk.isEmpty else { return }
        try deflate(queueChunk.bytes)
        queueChunk.removeAll()
    }

    /// Runs `work` on the queue, after what is there already; throws the queue's first
    /// error (from this or an earlier work).
    private func onQueue(_ work: @escaping @Sendable (PerfettoFileWriter) throws -> Void) throws {
        try firstFailure()
        inFlight.wait()
        queue.async { [self] in
            defer { inFlight.signal() }
            guard firstFailureOnQueue() == nil else { return }
            do { try work(self) } catch {
                failureLock.lock()
                failure = error
                failureLock.unlock()
            }
        }
    }

    private func firstFailureOnQueue() -> Error? {
        failureLock.lock()
        defer { failureLock.unlock() }
        return failure
    }

    private func firstFailure() throws {
        if let failure = firstFailureOnQueue() { throw failure }
    }

    /// Writes what is buffered and puts the file in place.
    func finish() throws {
        try compressChunk()
        if deflater != nil { try onQueue { try $0.deflateQueueChunk() } }
        queue.sync {}
        try firstFailure()
        try flush()
        try output.putInPlace()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.bytes.withUnsafeBufferPointer { try output.write(Data(buffer: $0)) }
        buffer.removeAll()
    }
}

/// One zlib deflate stream, reset for each chunk: each chunk becomes a whole zlib stream
/// (header, deflate data, Adler-32), which Perfetto reads as one frame.
private final class Deflater {
    private var stream = z_stream()
    private var output: [UInt8]
    private let ready: Bool

    init(level: Int32, capacity: Int) {
        ready = pipescope_deflate_init(&stream, level) == Z_OK
        output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(capacity))) + 64)
    }

    deinit { if ready { deflateEnd(&stream) } }

    /// Compresses `input` whole and hands the compressed bytes to `body`; false if zlib
    /// failed.
    func compress(_ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard ready, deflateReset(&stream) == Z_OK else { return false }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        let status: Int32 = output.withUnsafeMutableBufferPointer { out in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            return deflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else { return false }
        let count = Int(stream.total_out)
        output.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
        return true
    }
}
