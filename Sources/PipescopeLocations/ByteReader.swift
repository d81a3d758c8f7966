/// Reads DWARF's encodings from mapped bytes, never past `end`: a malformed or truncated
/// table throws ``Malformed`` instead of reading out of bounds. (The line tables' file
/// tables; their programs run in C, `DwarfLines.c`.)
struct ByteReader {
    struct Malformed: Error {}

    let bytes: UnsafeRawBufferPointer
    var at: Int
    let end: Int

    package init(_ bytes: UnsafeRawBufferPointer, at: Int, end: Int? = nil) {
        self.bytes = bytes
        self.at = at
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var isAtEnd: Bool { at >= end }

    // Written out per width, not generic: the tap's debug builds run this too, and an
    // unspecialized generic read is ten times slower there.
    mutating func u8() throws -> UInt8 {
        guard at >= 0, at < end else { throw Malformed() }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func u16() throws -> UInt16 {
        guard at >= 0, at + 2 <= end else { throw Malformed() }
        defer { at += 2 }
        return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }

    mutating func u32() throws -> UInt32 {
        guard at >= 0, at + 4 <= end else { throw Malformed() }
        defer { at += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    mutating func u64() throws -> UInt64 {
        guard at >= 0, at + 8 <= end else { throw Malformed() }
        defer { at += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    mutating func uleb() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
            shift += 7
            if byte & 0x80 == 0 { return value }
        }
    }

    /// A NUL-terminated string.
    mutating func cString() throws -> String {
        let start = at
        while true {
            guard at < end else { throw Malformed() }
            if bytes[at] == 0 { break }
            at += 1
        }
        defer { at += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
    }

    /// A string at `offset` in a string section.
    static func string(in section: UnsafeRawBufferPointer?, at offset: UInt64) throws -> String {
        guard let section, offset < UInt64(section.count) else { throw Malformed() }
        var r = ByteReader(section, at: Int(offset))
        return try r.cString()
    }

    /// One attribute value of a DWARF 5 line table entry, in `form`: a string or a number.
    mutating func formValue(_ form: UInt64, offsetSize: Int, lineStrings: UnsafeRawBufferPointer?,
                            strings: UnsafeRawBufferPointer?) throws -> (string: String?, number: UInt64?) {
        func offset() throws -> UInt64 { offsetSize == 8 ? try u64() : UInt64(try u32()) }
        switch form {
        case 0x08: return (try cString(), nil)                                            // string
        case 0x1f: return (try Self.string(in: lineStrings, at: try offset()), nil)      // line_strp
        case 0x0e: return (try Self.string(in: strings, at: try offset()), nil)          // strp
        case 0x0b: return (nil, UInt64(try u8()))                                          // data1
        case 0x05: return (nil, UInt64(try u16()))                                         // data2
        case 0x06: return (nil, UInt64(try u32()))                                         // data4
        case 0x07: return (nil, try u64())                                                 // data8
        case 0x0f: return (nil, try uleb())                                                // udata
        case 0x1e: at += 16; return (nil, nil)                                             // data16 (MD5)
        case 0x09: at += Int(try uleb()); return (nil, nil)                                // block
        default: throw Malformed()  // strx and others: not used by line tables we read
        }
    }
}
