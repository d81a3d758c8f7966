import Foundation
import PipescopeWire

/// Reads a recording one message at a time, holding one chunk of the file and one
/// frame, so its memory does not grow with the recording: what a pass over a long
/// recording (`pipescope export`) uses. ``RecordingFormat/read(_:)`` reads a whole
/// recording at once.
///
/// A frame cut off at the end (the program stopped while writing, or a copy cut short), or a tail of zeros
/// (blocks a power loss left unwritten), ends the messages without an error:
/// ``truncatedBytes`` then says how many bytes were left over. The end mark ends them
/// too, with ``endReason``; a recording without one was never closed.
///
/// ```swift
/// var file = try RecordingReader(path: "crash.pipescope")
/// var stream = WireStreamReader()
/// while let message = try file.next() { … try stream.batch(message.packed) … }
/// if file.truncatedBytes > 0 { print("cut off after \(file.messagesRead) messages") }
/// ```
public struct RecordingReader {
    /// Where the bytes come from: the next chunk of at most `count` bytes, or an empty
    /// array at the end.
    public typealias Source = (_ count: Int) throws -> [UInt8]

    private let source: Source
    private let chunkSize: Int
    private var decoder = FrameDecoder()
    private var parts = SnapshotJoiner()
    /// Frame bytes of the parts read of a snapshot whose last part is not read yet.
    private var heldBytes = 0
    private var atEnd = false
    /// Bytes of a cut-off tail found by looking past a frame of zeros.
    private var zeroTail = 0

    /// Complete messages returned so far.
    public private(set) var messagesRead = 0
    /// Bytes of the file up to the end of the last complete message returned (the magic
    /// line included): where a damaged or cut-off recording stops being readable.
    public private(set) var bytesRead = 0
    /// Bytes taken from the source so far.
    public private(set) var bytesFetched = 0
    /// Why the writer closed the recording, once ``next()`` has read its end mark; nil
    /// for a recording whose writer stopped without closing it (killed, crashed, or its
    /// disk full).
    public private(set) var endReason: String?
    /// Whether a writer held the file open when it was opened here (its advisory lock,
    /// which every Pipescope writer takes and the kernel lets go when the writer closes or
    /// dies): a recording still being written ends without its end mark, and often in the
    /// middle of a frame, because its writer has not got there yet, not because it stopped.
    /// False for a reader of bytes, and where locks are not supported. Once a followed file's
    /// writer lets go (``follow``), false again.
    public private(set) var beingWritten = false
    /// Follow the file as its writer appends to it (`replay --follow`, like `tail -f`): while
    /// a writer holds it (``beingWritten``), its end is not the recording's end: ``next()``
    /// returns nil with ``waiting`` set, keeping a frame half-written so far, and a later
    /// ``next()`` reads on from there. Once the writer lets go, the file is read to its end
    /// as any other.
    public var follow = false
    /// Whether the last ``next()`` returned nil only because a followed writer has not
    /// written more yet (``follow``).
    public private(set) var waiting = false
    /// Asks whether a writer still holds the file (nil for a reader of bytes).
    private var writerHolds: (() -> Bool)?

    /// Opens `path` and checks its first line. Throws ``RecordingFormat/OpenError`` when
    /// the file cannot be read, ``RecordingFormat/ReadError/empty`` when it is empty, and
    /// ``RecordingFormat/ReadError/notARecording`` when it is something else.
    public init(path: String, chunkSize: Int = 1 << 20) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RecordingFormat.OpenError(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw RecordingFormat.OpenError(path: path, reason: "it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RecordingFormat.OpenError(path: path, reason: "not readable (check its permissions)")
        }
        let writing = Self.isLocked(handle.fileDescriptor)
        try self.init(chunkSize: chunkSize) { count in
            do {
                return Array(try handle.read(upToCount: count) ?? Data())
            } catch {
                throw RecordingFormat.OpenError(path: path, reason: "reading failed (\(error.localizedDescription))")
            }
        }
        beingWritten = writing
        writerHolds = { Self.isLocked(handle.fileDescriptor) }
    }

    /// Whether another open file description holds `fd`'s file's exclusive lock: asks for a
    /// shared one without waiting, and gives it back at once.
    private static func isLocked(_ fd: Int32) -> Bool {
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// Reads from `source`, `chunkSize` bytes at a time (tests pass a byte array in
    /// small pieces to cut frames anywhere).
    public init(chunkSize: Int = 1 << 20, source: @escaping Source) throws {
        self.source = source
        self.chunkSize = max(1, chunkSize)
        let magic = RecordingFormat.magic
        var head: [UInt8] = []
        while head.count < magic.count {
            let chunk = try source(self.chunkSize)
            if chunk.isEmpty { break }
            head.append(contentsOf: chunk)
        }
        bytesFetched = head.count
        guard !head.isEmpty else { throw RecordingFormat.ReadError.empty }
        guard head.count >= magic.count, head.prefix(magic.count).elementsEqual(magic) else {
            throw RecordingFormat.ReadError.notARecording
        }
        decoder.append(head.dropFirst(magic.count))
        bytesRead = magic.count
    }

    /// Convenience for a recording already in memory.
    public init(bytes: [UInt8], chunkSize: Int = 1 << 20) throws {
        var offset = 0
        try self.init(chunkSize: chunkSize) { count in
            let end = min(bytes.count, offset + count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    /// The next message, or nil at the end of the file or at its end mark. Throws
    /// ``RecordingFormat/ReadError/corrupt(afterMessages:reason:)`` for a damaged frame
    /// (a length past the limit, bytes that are not a message, or bytes after the end
    /// mark).
    public mutating func next() throws -> ServerMessage? {
        waiting = false
        if zeroTail > 0 { return nil }
        while true {
            let payload: ArraySlice<UInt8>?
            do {
                payload = try decoder.next()
            } catch {
                throw corrupt(RecordingFormat.damage(error))
            }
            if let payload {
                if endReason != nil {
                    throw corrupt("\(Framing.headerSize + payload.count) bytes follow the recording's end mark")
                }
                if let reason = RecordingFormat.endReason(of: payload) {
                    if parts.isJoining { throw corrupt("the end mark came between the parts of a snapshot") }
                    endReason = reason
                    bytesRead += Framing.headerSize + payload.count
                    continue
                }
                // No message is empty or starts with a zero byte: zeros to the end of the
                // file are blocks a power loss left unwritten.
                if payload.first ?? 0 == 0, payload.allSatisfy({ $0 == 0 }), let rest = try zerosToTheEnd() {
                    zeroTail = Framing.headerSize + payload.count + rest
                    return nil
                }
                guard !payload.isEmpty else { throw corrupt("an empty frame, which no writer makes") }
                let joined: ServerMessage?
                do {
                    joined = try parts.join(ServerMessage.decode(payload: payload))
                } catch {
                    throw corrupt(RecordingFormat.damage(error))
                }
                // A snapshot's parts count as one message, read once its last part is.
                guard let message = joined else {
                    heldBytes += Framing.headerSize + payload.count
                    continue
                }
                messagesRead += 1
                bytesRead += heldBytes + Framing.headerSize + payload.count
                heldBytes = 0
                return message
            }
            if atEnd {
                if endReason != nil, decoder.pendingByteCount > 0 {
                    throw corrupt("\(decoder.pendingByteCount) bytes follow the recording's end mark")
                }
                return nil
            }
            let chunk = try source(chunkSize)
            if chunk.isEmpty {
                if follow, beingWritten, endReason == nil, let writerHolds {
                    // Asked after the read came back empty: a writer that let go since has
                    // written all it will, and the next read gets the rest.
                    if writerHolds() {
                        waiting = true
                        return nil
                    }
                    beingWritten = false
                    continue
                }
                atEnd = true
            } else {
                bytesFetched += chunk.count
                decoder.append(chunk)
            }
        }
    }

    /// Bytes after the last complete message, once ``next()`` has returned nil: the
    /// program stopped while writing a frame (or a copy was cut short), or the system before writing its blocks.
    /// A snapshot's parts without their last count as cut off too.
    public var truncatedBytes: Int {
        heldBytes + (zeroTail > 0 ? zeroTail : atEnd ? decoder.pendingByteCount : 0)
    }

    private func corrupt(_ reason: String) -> RecordingFormat.ReadError {
        .corrupt(afterMessages: messagesRead, reason: reason)
    }

    /// How many bytes are left to the end of the file if every one is zero (reading
    /// them all, keeping none), or nil. Only asked where the file is damaged unless it is.
    private mutating func zerosToTheEnd() throws -> Int? {
        guard decoder.pendingIsZeros else { return nil }
        var count = decoder.pendingByteCount
        while !atEnd {
            let chunk = try source(chunkSize)
            guard !chunk.isEmpty else { atEnd = true; break }
            bytesFetched += chunk.count
            guard chunk.allSatisfy({ $0 == 0 }) else { return nil }
            count += chunk.count
        }
        return count
    }
}

extension RecordingFormat {
    /// The file could not be opened.
    public struct OpenError: Error, CustomStringConvertible, Equatable {
        public var path: String
        /// "no such file", "it is a directory", …
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String {
            "cannot read \(path): \(reason). "
                + "Give the path of a file made by `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE."
        }
    }
}
