import Foundation
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `node_deltas`, `time_deltas` and `int_deltas` are coded by Pipescope (``ZigzagColumn``)
/// and declared as `bytes`: they must be byte for byte what swift-protobuf writes and
/// reads for a packed `repeated sint64` (`demands` still is one), so frames and
/// recordings of every version read the same, and broken numbers are refused in words.
final class ZigzagColumnTests: XCTestCase {
    /// Numbers at every varint length's edges, both signs, and the extremes.
    static let edges: [Int64] = {
        var numbers: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1]
        for bits in stride(from: 6, through: 62, by: 7) {
            let edge = Int64(1) << bits
            numbers += [edge - 1, edge, -edge, -edge - 1]
        }
        return numbers
    }()

    private func frame(demands: [Int64]) -> [UInt8] {
        var m = ServerMessage()
        m.packed.demands = demands
        return m.framed()
    }

    private func frame(nodeDeltas: Data) -> [UInt8] {
        var m = ServerMessage()
        m.packed.nodeDeltas = nodeDeltas
        return m.framed()
    }

    /// The tags of `demands` (field 14) and `node_deltas` (field 11), both length-delimited.
    private let demandsTag: UInt8 = 14 << 3 | 2, nodeDeltasTag: UInt8 = 11 << 3 | 2

    func testTheBytesAreThoseOfAPackedSint64() {
        var rng = SeededGenerator(seed: 26)
        let random = (0..<2_000).map { _ in
            Int64.random(in: .min ... .max, using: &rng) >> Int64.random(in: 0...63, using: &rng)
        }
        for numbers in [Self.edges, random, [42]] {
            let protobuf = frame(demands: numbers), ours = frame(nodeDeltas: ZigzagColumn.encode(numbers))
            XCTAssertEqual(protobuf.count, ours.count)
            // The same frame but for the field's tag.
            let differing = zip(protobuf, ours).enumerated().filter { $0.element.0 != $0.element.1 }
            XCTAssertEqual(differing.map { [$0.element.0, $0.element.1] }, [[demandsTag, nodeDeltasTag]])
        }
        XCTAssertEqual(ZigzagColumn.encode([]), Data())
        XCTAssertEqual([UInt8](ZigzagColumn.encode([3, -1, 300])), [0x06, 0x01, 0xd8, 0x04])
    }

    func testAnOlderFramesPackedSint64ReadsAsTheSameNumbers() throws {
        var rng = SeededGenerator(seed: 27)
        let random = (0..<2_000).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &rng) }
        for numbers in [Self.edges, random] {
            // What swift-protobuf wrote for a `repeated sint64`, read at field 11 as bytes.
            var bytes = frame(demands: numbers)
            let at = try XCTUnwrap(bytes.firstIndex(of: demandsTag))
            bytes[at] = nodeDeltasTag
            let read = try ServerMessage.decode(payload: bytes.dropFirst(Framing.headerSize))
            XCTAssertEqual(try ZigzagColumn.decode(read.packed.nodeDeltas, "node"), numbers)
        }
    }

    func testATenthBytesHighBitsAreIgnoredAsProtobufIgnoresThem() throws {
        // Ten bytes whose last has bits past the 64th: swift-protobuf keeps the low 64.
        let number: [UInt8] = Array(repeating: 0xff, count: 9) + [0x7f]
        var bytes = frame(demands: [0])
        let at = try XCTUnwrap(bytes.firstIndex(of: demandsTag))
        // Rewrite the column's one byte (0) as the ten, and the lengths that contain it.
        bytes.replaceSubrange(at + 2...at + 2, with: number)
        bytes[at + 1] = UInt8(number.count)
        bytes[at - 1] += UInt8(number.count - 1)
        let payload = Array(bytes.dropFirst(Framing.headerSize))
        let protobuf = try ServerMessage.decode(payload: payload).packed.demands
        XCTAssertEqual(protobuf, [Int64.min])
        XCTAssertEqual(try ZigzagColumn.decode(Data(number), "node"), protobuf)
    }

    func testBrokenNumbersAreRefusedInWords() {
        func refused(_ bytes: [UInt8], _ expected: String, line: UInt = #line) {
            XCTAssertThrowsError(try ZigzagColumn.decode(Data(bytes), "time"), line: line) { error in
                guard case .malformed(let why)? = error as? FrameError else {
                    return XCTFail("not FrameError.malformed: \(error)", line: line)
                }
                XCTAssertTrue(why.contains(expected), why, line: line)
            }
        }
        refused([0x80], "time column ends inside a number")
        refused([0x02, 0xd8], "ends inside a number")
        refused(Array(repeating: 0xff, count: 10), "longer than 10 bytes")
        refused(Array(repeating: 0x80, count: 11) + [0x00], "longer than 10 bytes")
        XCTAssertEqual(try ZigzagColumn.decode(Data(), "time"), [])
        XCTAssertEqual(try ZigzagColumn.decode(Data([0x80, 0x00]), "time"), [0], "over-long but within 10 bytes")
    }

    func testACutOrDamagedColumnInABatchIsRefused() {
        var writerTable = StringTable()
        let packed = BatchPacking.pack(BatchFixtures.realisticBatch(), table: &writerTable)
        for damage in [{ (p: inout WirePackedBatch) in p.nodeDeltas.append(0x80) },
                       { (p: inout WirePackedBatch) in p.timeDeltas = Data(repeating: 0xff, count: 11) }] {
            var p = packed
            damage(&p)
            var table = StringTable()
            XCTAssertThrowsError(try BatchPacking.unpack(p, table: &table)) { error in
                XCTAssertTrue("\(error)".contains("column"), "\(error)")
            }
        }
    }
}
