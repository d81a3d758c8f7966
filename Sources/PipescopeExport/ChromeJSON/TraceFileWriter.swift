import Foundation

/// Where an exporter puts its trace events, one at a time.
public protocol TraceEventSink: AnyObject {
    func write(_ event: TraceEvent) throws
}

/// Collects trace events in memory (tests, small exports).
public final class TraceEventCollector: TraceEventSink {
    public private(set) var events: [TraceEvent] = []

    public init() {}

    public func write(_ event: TraceEvent) throws { events.append(event) }
}

/// Streams trace events into a JSON file as they come: `{"traceEvents":[`, the events
/// separated by commas, then `],"otherData":{…}}`. Every event, and the closing
/// `otherData`, is written by Foundation's `JSONEncoder` (which escapes quotes, control
/// characters and the rest); the writer adds only that fixed framing. Memory holds one
/// chunk of events, however many are written.
///
/// Encoding dominates an export's time, so the writer encodes several chunks at once,
/// one per core, and writes them in order. Keys are sorted: the same recording always
/// gives the same bytes.
///
/// The file appears at `path` only when ``finish(otherData:)`` succeeds: until then the
/// events go to a temporary file beside it, so an interrupted export leaves no half file.
///
/// ```swift
/// let writer = try TraceFileWriter(path: "out.json")
/// try writer.write(TraceEvent(.instant, name: "value", pid: 1, tid: 1, ts: 0, scope: .thread))
/// try writer.finish(otherData: ["source": "app.pipescope"])
/// ```
public final class TraceFileWriter: TraceEventSink {
    public let path: String
    /// Events written so far.
    public private(set) var eventCount = 0
    /// Bytes written so far.
    public var byteCount: Int { output.byteCount }

    private let output: TraceOutputFile
    private var pending: [TraceEvent] = []
    private let chunkSize: Int
    /// Chunks encoded at once.
    private let parallelChunks: Int

    /// Creates the output. `"-"` writes to standard output instead of a file. Throws
    /// ``TraceWriteError`` when the directory is missing or not writable.
    public init(path: String, chunkSize: Int = 512,
                parallelChunks: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) throws {
        self.path = path
        self.chunkSize = max(1, chunkSize)
        self.parallelChunks = max(1, parallelChunks)
        output = try TraceOutputFile(path: path)
        try output.write(Data(#"{"traceEvents":["#.utf8))
    }

    public func write(_ event: TraceEvent) throws {
        pending.append(event)
        if pending.count >= chunkSize * parallelChunks { try flush() }
    }

    /// Ends the event array, adds `otherData` (free-form facts about the export that
    /// viewers show as metadata) and puts the file in place.
    public func finish(otherData: [String: String] = [:]) throws {
        try flush()
        var tail = Data("],\"otherData\":".utf8)
        tail.append(try encode(otherData))
        tail.append(Data("}\n".utf8))
        try output.write(tail)
        try output.putInPlace()
    }

    /// Encodes the pending events, a chunk per core at once, each chunk as one JSON
    /// array, and writes their elements in order: the encoder's own output between its
    /// `[` and `]`.
    private func flush() throws {
        guard !pending.isEmpty else { return }
        let chunks = stride(from: 0, to: pending.count, by: chunkSize).map {
            Array(pending[$0..<min($0 + chunkSize, pending.count)])
        }
        let encoded = EncodedChunks(count: chunks.count)
        DispatchQueue.concurrentPerform(iterations: chunks.count) { i in
            encoded.set(i, Result { try Self.encoder().encode(chunks[i]) })
        }
        var out = Data()
        for result in encoded.results {
            let array: Data
            do {
                array = try result!.get()
            } catch {
                throw TraceWriteError(path: path, reason: "a value could not be encoded as JSON (\(error))")
            }
            if eventCount > 0 || !out.isEmpty { out.append(UInt8(ascii: ",")) }
            out.append(array.dropFirst().dropLast())
        }
        eventCount += pending.count
        pending.removeAll(keepingCapacity: true)
        try output.write(out)
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private func encode<T: Encodable>(_ value: T) throws -> Data {
        do {
            return try Self.encoder().encode(value)
        } catch {
            throw TraceWriteError(path: path, reason: "a value could not be encoded as JSON (\(error))")
        }
    }
}

/// Chunks encoded on several threads, kept in their order.
private final class EncodedChunks: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var results: [Result<Data, Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Data, Error>) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }
}
