/// An append-only protobuf encoder over `[UInt8]`: the few wire types a Perfetto trace
/// needs (varint, 64-bit, length-delimited), written field by field, in any order.
///
/// A nested message is written in place: ``message(_:_:)`` reserves one byte for its
/// length, encodes the body after it, then widens the length if the body was 128 bytes
/// or more. No generated code: the field numbers come from ``PerfettoSchema``.
///
/// ```swift
/// var w = ProtoWriter()
/// w.message(1) { packet in                      // Trace.packet
///     packet.varint(8, 1_700_000_000_000_000_000) // TracePacket.timestamp
///     packet.string(23, "value")                  // (a TrackEvent's name, for example)
/// }
/// ```
struct ProtoWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    var isEmpty: Bool { bytes.isEmpty }
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    // MARK: - Wire types

    private enum WireType: UInt64 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2
    }

    @inline(__always)
    private mutating func tag(_ field: Int, _ type: WireType) {
        rawVarint(UInt64(field) << 3 | type.rawValue)
    }

    @inline(__always)
    mutating func rawVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    // MARK: - Fields

    /// uint32, uint64, int32 and int64 (negative numbers take ten bytes, as protobuf says),
    /// bool and enum fields.
    mutating func varint(_ field: Int, _ value: UInt64) {
        tag(field, .varint)
        rawVarint(value)
    }

    mutating func varint(_ field: Int, _ value: Int64) { varint(field, UInt64(bitPattern: value)) }
    mutating func varint(_ field: Int, _ value: Int) { varint(field, Int64(value)) }
    mutating func bool(_ field: Int, _ value: Bool) { varint(field, UInt64(value ? 1 : 0)) }

    /// fixed64 fields (Perfetto's flow ids).
    mutating func fixed64(_ field: Int, _ value: UInt64) {
        tag(field, .fixed64)
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { bytes.append(contentsOf: $0) }
    }

    /// double fields: a fixed64 of the IEEE bits.
    mutating func double(_ field: Int, _ value: Double) { fixed64(field, value.bitPattern) }

    /// string fields. Swift strings are valid UTF-8 (invalid input was repaired when it
    /// became a String), which proto `string` requires.
    mutating func string(_ field: Int, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            tag(field, .lengthDelimited)
            rawVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// bytes fields.
    mutating func data(_ field: Int, _ value: [UInt8]) {
        tag(field, .lengthDelimited)
        rawVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// bytes fields, from a buffer.
    mutating func data(_ field: Int, _ value: UnsafeBufferPointer<UInt8>) {
        tag(field, .lengthDelimited)
        rawVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Bytes already encoded as fields, appended as they are.
    mutating func append(_ encoded: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: encoded) }
    mutating func append(_ encoded: [UInt8]) { bytes.append(contentsOf: encoded) }

    /// Drops what was written after the first `count` bytes.
    mutating func truncate(to count: Int) { bytes.removeSubrange(count...) }

    /// The bytes a varint takes.
    static func varintSize(_ value: UInt64) -> Int {
        var v = value, n = 1
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }

    /// A nested message, encoded in place by `body`.
    mutating func message(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        let start = beginMessage(field)
        body(&self)
        endMessage(start)
    }

    /// Starts a nested message written field by field; ``endMessage(_:)`` ends it. Returns
    /// where its length goes (one byte is reserved, widened at the end if the body needs).
    @inline(__always)
    mutating func beginMessage(_ field: Int) -> Int {
        tag(field, .lengthDelimited)
        bytes.append(0)
        return bytes.count - 1
    }

    mutating func endMessage(_ lengthAt: Int) {
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        var prefix: [UInt8] = []
        var v = UInt64(length)
        while v >= 0x80 {
            prefix.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        prefix.append(UInt8(v))
        bytes.replaceSubrange(lengthAt..<(lengthAt + 1), with: prefix)
    }

    /// An already encoded message as a length-delimited field.
    mutating func message(_ field: Int, encoded: [UInt8]) { data(field, encoded) }
}
