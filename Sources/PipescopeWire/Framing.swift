import Foundation

/// Length-prefixed frames: a 4-byte big-endian length, then that many payload bytes.
///
/// Used for sockets and for recordings alike, so a recording is exactly the byte stream
/// an inspector received. Decoding never trusts the peer: a length above
/// ``maxFrameSize`` is an error before anything is allocated.
///
/// ```swift
/// var decoder = FrameDecoder()
/// decoder.append(bytes)
/// while let frame = try decoder.next() { handle(frame) }
/// ```
public enum Framing {
    /// The largest payload either side accepts: 4 MiB.
    public static let maxFrameSize = 4 * 1024 * 1024
    public static let headerSize = 4

    /// The frame for `payload`: header then payload.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(headerSize + payload.count)
        appendHeader(length: payload.count, to: &out)
        out.append(contentsOf: payload)
        return out
    }

    public static func appendHeader(length: Int, to out: inout [UInt8]) {
        let n = UInt32(length)
        out.append(UInt8(truncatingIfNeeded: n >> 24))
        out.append(UInt8(truncatingIfNeeded: n >> 16))
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
    }
}

/// Why a byte stream could not be read as frames or messages.
public enum FrameError: Error, Equatable, CustomStringConvertible {
    case oversized(Int)
    case malformed(String)

    public var description: String {
        switch self {
        case .oversized:
            return fault + ". The peer is not a Pipescope \(ProtocolVersion.current) endpoint, or is broken."
        case .malformed:
            return fault + ". The peer is not speaking the Pipescope protocol."
        }
    }

    /// What is wrong with the bytes, without saying whose fault it is: a connection's
    /// error blames the peer (``description``), a recording's reader says the recording
    /// is damaged (PipescopeRecording's `RecordingFormat.damage(_:)`).
    public var fault: String {
        switch self {
        case .oversized(let n):
            return "frame of \(n) bytes refused: the limit is \(Framing.maxFrameSize) bytes"
        case .malformed(let why):
            return "malformed message: \(why)"
        }
    }
}

/// Incremental frame decoder: feed bytes as they arrive, take complete frames out.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Bytes received but not yet returned as a frame.
    public var pendingByteCount: Int { buffer.count - start }

    /// Whether every byte received but not yet returned is zero.
    public var pendingIsZeros: Bool { buffer[start...].allSatisfy { $0 == 0 } }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame's payload, or nil when more bytes are needed.
    /// Throws ``FrameError/oversized(_:)`` as soon as a header announces too much.
    public mutating func next() throws -> ArraySlice<UInt8>? {
        guard buffer.count - start >= Framing.headerSize else { return nil }
        let length = Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16
            | Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
        guard length <= Framing.maxFrameSize else { throw FrameError.oversized(length) }
        let end = start + Framing.headerSize + length
        guard buffer.count >= end else { return nil }
        let payload = buffer[(start + Framing.headerSize)..<end]
        start = end
        return payload
    }
}
