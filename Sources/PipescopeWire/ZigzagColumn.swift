import Foundation

/// A column of signed integers laid out as protobuf lays out a packed `repeated sint64`:
/// each number zigzag-encoded (0, -1, 1, -2 … as 0, 1, 2, 3 …) and written as a varint,
/// seven bits a byte, low bits first, the high bit set on every byte but a number's last.
///
/// `PackedBatch`'s three columns with an entry per event (`node_deltas`, `time_deltas`,
/// `int_deltas` in Resources/pipescope.proto) are declared as `bytes` and coded here,
/// in one tight loop each way: swift-protobuf's generic path for packed `sint64` (sizing,
/// then writing, then decoding value by value into a growing array) would be 39% of the
/// wire's instructions. The bytes are the same as that path's, so recordings of every version
/// read the same.
///
/// ```swift
/// let bytes = ZigzagColumn.encode([3, -1, 300])      // 06 01 d8 04
/// try ZigzagColumn.decode(bytes, "node")             // [3, -1, 300]
/// ```
public enum ZigzagColumn {
    /// The bytes of `values`, as a packed `repeated sint64` field's contents.
    public static func encode(_ values: [Int64]) -> Data {
        var writer = Writer(capacity: values.count)
        for value in values { writer.append(value) }
        return writer.finish()
    }

    /// Writes a column a number at a time, into room for `capacity` numbers of the
    /// longest kind (ten bytes), with no check per byte.
    struct Writer: ~Copyable {
        private let base: UnsafeMutablePointer<UInt8>
        private let capacity: Int
        private var at = 0

        init(capacity: Int) {
            self.capacity = max(capacity, 1)
            base = .allocate(capacity: self.capacity * 10)
        }

        deinit { base.deallocate() }

        /// Adds `value`; at most `capacity` numbers in all.
        @inline(__always)
        mutating func append(_ value: Int64) {
            precondition(at <= (capacity - 1) * 10, "more numbers than the column has room for")
            var rest = UInt64(bitPattern: (value << 1) ^ (value >> 63))
            while rest >= 0x80 {
                base[at] = UInt8(truncatingIfNeeded: rest) | 0x80
                rest >>= 7
                at += 1
            }
            base[at] = UInt8(rest)
            at += 1
        }

        /// The column's bytes.
        consuming func finish() -> Data {
            at == 0 ? Data() : Data(bytes: base, count: at)
        }
    }

    /// The numbers in `data`. A number cut off at the end, or one longer than ten bytes,
    /// throws ``FrameError/malformed(_:)`` naming the `column`. A tenth byte's bits past
    /// the 64th are ignored, as protobuf's decoders do.
    public static func decode(_ data: Data, _ column: String) throws -> [Int64] {
        var reader = Reader(data, column)
        var numbers: [Int64] = []
        numbers.reserveCapacity(reader.byteCount)
        while let number = try reader.next() { numbers.append(number) }
        return numbers
    }

    /// Reads a column a number at a time, as the events that need one come: no array of
    /// numbers between the bytes and the events.
    struct Reader {
        private let bytes: [UInt8]
        private var at = 0
        private let column: String

        init(_ data: Data, _ column: String) {
            bytes = [UInt8](data)
            self.column = column
        }

        /// The column's bytes: a bound on its numbers, each at least a byte.
        var byteCount: Int { bytes.count }

        /// How many numbers the column holds: its bytes without the high bit, each the
        /// last of a number. (A number cut off at the end is not counted; reading it throws.)
        var count: Int {
            var numbers = 0
            for byte in bytes where byte < 0x80 { numbers += 1 }
            return numbers
        }

        /// Whether every number has been read.
        var atEnd: Bool { at == bytes.count }

        /// The next number, or nil after the last. Throws for a number cut off at the
        /// end or longer than ten bytes.
        @inline(__always)
        mutating func next() throws -> Int64? {
            guard at < bytes.count else { return nil }
            let byte = bytes[at]
            at += 1
            var number = UInt64(byte)
            if byte >= 0x80 { number = try rest(of: number) }
            return Int64(bitPattern: number >> 1) ^ -Int64(bitPattern: number & 1)
        }

        /// The bytes after a number's first, which had its high bit set.
        private mutating func rest(of first: UInt64) throws -> UInt64 {
            var number = first & 0x7f
            var shift: UInt64 = 7
            var byte: UInt8
            repeat {
                guard shift <= 63 else {
                    throw FrameError.malformed("a packed batch whose \(column) column has a number longer than 10 bytes")
                }
                guard at < bytes.count else {
                    throw FrameError.malformed("a packed batch whose \(column) column ends inside a number")
                }
                byte = bytes[at]
                at += 1
                number |= UInt64(byte & 0x7f) << shift
                shift += 7
            } while byte >= 0x80
            return number
        }
    }
}
