import PipescopeGraph

/// A ``NodeInfo`` as bytes, for the history's spill: a stage whose subscribe event went to
/// disk keeps its description there too (replaying that subscribe needs it), not in
/// memory (368 bytes and its strings a stage, for every stage since the first event).
/// Little-endian numbers, strings as a 4-byte length and UTF-8, optionals behind a byte.
///
/// ```swift
/// let bytes = NodeInfoBytes.encode(info)
/// assert(NodeInfoBytes.decode(bytes) == info)
/// ```
enum NodeInfoBytes {
    static func encode(_ info: NodeInfo) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        put(info.id, &out)
        put(info.parent.map { $0 }, &out)
        put(info.operatorName, &out)
        put(info.publisherType, &out)
        put(info.subscriber, &out)
        put(info.thread, &out)
        put(UInt64(bitPattern: info.createdNanos), &out)
        put(info.location, &out)
        put(UInt64(info.frames.count), &out)
        for frame in info.frames { put(frame, &out) }
        put(info.madeFor, &out)
        put(info.publisher, &out)
        out.append(info.subjectSource ? 1 : 0)
        put(info.code, &out)
        put(info.builtBy, &out)
        return out
    }

    /// The info `encode` wrote; nil for bytes it did not (a short read).
    static func decode(_ bytes: [UInt8]) -> NodeInfo? {
        var reader = Reader(bytes: bytes)
        guard let id = reader.number(), let parent = reader.optionalNumber(), let op = reader.string(),
              let type = reader.string(), let subscriber = reader.string(), let thread = reader.string(),
              let created = reader.number(), let location = reader.optionalLocation(), let count = reader.number(),
              count <= UInt64(bytes.count) else { return nil }
        var frames: [SourceLocation] = []
        for _ in 0..<count {
            guard let frame = reader.location() else { return nil }
            frames.append(frame)
        }
        guard let madeFor = reader.number(), let publisher = reader.number(), let subject = reader.byte(),
              let code = reader.optionalLocation(), let builtBy = reader.optionalLocation() else { return nil }
        return NodeInfo(id: id, parent: parent, operatorName: op, publisherType: type, subscriber: subscriber,
                        thread: thread, createdNanos: Int64(bitPattern: created), location: location, frames: frames,
                        madeFor: madeFor, publisher: publisher, subjectSource: subject != 0, code: code,
                        builtBy: builtBy)
    }

    private static func put(_ n: UInt64, _ out: inout [UInt8]) {
        withUnsafeBytes(of: n.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func put(_ n: UInt64?, _ out: inout [UInt8]) {
        out.append(n == nil ? 0 : 1)
        if let n { put(n, &out) }
    }

    private static func put(_ s: String, _ out: inout [UInt8]) {
        let utf8 = Array(s.utf8)
        withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: utf8)
    }

    private static func put(_ s: String?, _ out: inout [UInt8]) {
        out.append(s == nil ? 0 : 1)
        if let s { put(s, &out) }
    }

    private static func put(_ l: SourceLocation, _ out: inout [UInt8]) {
        put(l.file, &out)
        put(l.line.map { UInt64(bitPattern: Int64($0)) }, &out)
        put(l.function, &out)
        put(l.image, &out)
        put(l.offset, &out)
    }

    private static func put(_ l: SourceLocation?, _ out: inout [UInt8]) {
        out.append(l == nil ? 0 : 1)
        if let l { put(l, &out) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func byte() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func number() -> UInt64? {
            guard at + 8 <= bytes.count else { return nil }
            var n: UInt64 = 0
            for k in 0..<8 { n |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            at += 8
            return n
        }

        /// An optional: nil when it could not be read, `.some(nil)` when it was absent.
        mutating func optionalNumber() -> UInt64?? {
            guard let flag = byte() else { return nil }
            if flag == 0 { return .some(nil) }
            guard let n = number() else { return nil }
            return .some(n)
        }

        mutating func string() -> String? {
            guard at + 4 <= bytes.count else { return nil }
            var length = 0
            for k in 0..<4 { length |= Int(bytes[at + k]) << (8 * k) }
            at += 4
            guard at + length <= bytes.count else { return nil }
            defer { at += length }
            return String(decoding: bytes[at..<(at + length)], as: UTF8.self)
        }

        mutating func optionalString() -> String?? {
            guard let flag = byte() else { return nil }
            if flag == 0 { return .some(nil) }
            guard let s = string() else { return nil }
            return .some(s)
        }

        mutating func location() -> SourceLocation? {
            guard let file = optionalString(), let line = optionalNumber(), let function = optionalString(),
                  let image = optionalString(), let offset = optionalNumber() else { return nil }
            return SourceLocation(file: file, line: line.map { Int(Int64(bitPattern: $0)) }, function: function,
                                  image: image, offset: offset)
        }

        mutating func optionalLocation() -> SourceLocation?? {
            guard let flag = byte() else { return nil }
            if flag == 0 { return .some(nil) }
            guard let l = location() else { return nil }
            return .some(l)
        }
    }
}
