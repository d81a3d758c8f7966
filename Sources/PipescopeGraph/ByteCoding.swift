/// Little-endian numbers and length-prefixed strings appended to bytes, and read back:
/// the plain binary layout ``GraphBytes`` keeps graphs in (a history's checkpoints on
/// disk). Nothing self-describing: the reader reads what the writer wrote, in order.
///
/// ```swift
/// var out = ByteWriter()
/// out.put(UInt64(42)); out.put("Map"); out.put(Optional<UInt64>.none)
/// var reader = ByteReader(out.bytes)
/// reader.number()           // 42
/// reader.string()           // "Map"
/// reader.optionalNumber()   // .some(nil)
/// ```
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public mutating func put(_ n: UInt64) {
        withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func put(_ n: Int64) { put(UInt64(bitPattern: n)) }
    public mutating func put(_ n: Int) { put(Int64(n)) }
    public mutating func put(_ b: Bool) { bytes.append(b ? 1 : 0) }
    public mutating func put(_ b: UInt8) { bytes.append(b) }

    public mutating func put(_ n: UInt64?) {
        bytes.append(n == nil ? 0 : 1)
        if let n { put(n) }
    }

    public mutating func put(_ n: Int64?) { put(n.map { UInt64(bitPattern: $0) }) }

    public mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func put(_ s: String?) {
        bytes.append(s == nil ? 0 : 1)
        if let s { put(s) }
    }

    public mutating func put(_ ids: [UInt64]) {
        put(ids.count)
        for id in ids { put(id) }
    }
}

/// Reads what a ``ByteWriter`` wrote; each read is nil once the bytes run out (a short
/// or damaged record), and every read after that is nil too.
public struct ByteReader {
    let bytes: [UInt8]
    var at = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte was read.
    public var atEnd: Bool { at == bytes.count }

    public mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }

    public mutating func bool() -> Bool? { byte().map { $0 != 0 } }

    public mutating func number() -> UInt64? {
        guard at + 8 <= bytes.count else { return nil }
        var n: UInt64 = 0
        for k in 0..<8 { n |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
        at += 8
        return n
    }

    public mutating func signed() -> Int64? { number().map { Int64(bitPattern: $0) } }

    /// A count of things to read next: nil when it is more than the bytes left could hold
    /// (a damaged record must not make a huge array).
    public mutating func count() -> Int? {
        guard let n = number(), n <= UInt64(bytes.count - at) else { return nil }
        return Int(n)
    }

    /// An optional number: nil when it could not be read, `.some(nil)` when it was absent.
    public mutating func optionalNumber() -> UInt64?? {
        guard let flag = byte() else { return nil }
        if flag == 0 { return .some(nil) }
        guard let n = number() else { return nil }
        return .some(n)
    }

    public mutating func optionalSigned() -> Int64?? {
        guard let n = optionalNumber() else { return nil }
        return .some(n.map { Int64(bitPattern: $0) })
    }

    public mutating func string() -> String? {
        guard at + 4 <= bytes.count else { return nil }
        var length = 0
        for k in 0..<4 { length |= Int(bytes[at + k]) << (8 * k) }
        at += 4
        guard length <= bytes.count - at else { return nil }
        defer { at += length }
        return bytes.withUnsafeBufferPointer { String(decoding: $0[at..<(at + length)], as: UTF8.self) }
    }

    public mutating func optionalString() -> String?? {
        guard let flag = byte() else { return nil }
        if flag == 0 { return .some(nil) }
        guard let s = string() else { return nil }
        return .some(s)
    }

    public mutating func ids() -> [UInt64]? {
        guard let n = count() else { return nil }
        var ids: [UInt64] = []
        ids.reserveCapacity(n)
        for _ in 0..<n {
            guard let id = number() else { return nil }
            ids.append(id)
        }
        return ids
    }
}
