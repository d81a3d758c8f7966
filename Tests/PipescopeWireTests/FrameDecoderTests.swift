import PipescopeWire
import XCTest

final class FrameDecoderTests: XCTestCase {
    private let payloads: [[UInt8]] = [
        Array("hello".utf8),
        [],
        Array(0..<200).map { UInt8($0) },
        [0, 0, 0, 0],
    ]

    private var stream: [UInt8] { payloads.flatMap(Framing.frame) }

    /// Takes every complete frame out of the decoder.
    private func drain(_ decoder: inout FrameDecoder) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let frame = try decoder.next() { out.append(Array(frame)) }
        return out
    }

    func testFrameIsBigEndianLengthThenPayload() {
        XCTAssertEqual(Framing.frame([7, 8, 9]), [0, 0, 0, 3, 7, 8, 9])
        XCTAssertEqual(Framing.frame(Array(repeating: 1, count: 0x0102)).prefix(4), [0, 0, 1, 2])
    }

    func testSeveralFramesInOneChunk() throws {
        var decoder = FrameDecoder()
        decoder.append(stream)
        XCTAssertEqual(try drain(&decoder), payloads)
        XCTAssertEqual(decoder.pendingByteCount, 0)
        XCTAssertNil(try decoder.next())
    }

    func testSplitAtEveryByteBoundaryReassembles() throws {
        let bytes = stream
        for cut in 0...bytes.count {
            var decoder = FrameDecoder()
            var frames: [[UInt8]] = []
            decoder.append(bytes[..<cut])
            frames += try drain(&decoder)
            decoder.append(bytes[cut...])
            frames += try drain(&decoder)
            XCTAssertEqual(frames, payloads, "split at byte \(cut)")
            XCTAssertEqual(decoder.pendingByteCount, 0, "split at byte \(cut)")
        }
    }

    func testByteByByteReassembles() throws {
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        for byte in stream {
            decoder.append([byte])
            frames += try drain(&decoder)
        }
        XCTAssertEqual(frames, payloads)
    }

    func testEmptyPayload() throws {
        var decoder = FrameDecoder()
        decoder.append(Framing.frame([]))
        XCTAssertEqual(try decoder.next().map(Array.init), [])
        XCTAssertNil(try decoder.next())
    }

    func testTruncatedFrameIsNilUntilCompleted() throws {
        let frame = Framing.frame(Array("complete me".utf8))
        var decoder = FrameDecoder()
        // Header cut short, then payload cut short: neither is an error.
        decoder.append(frame.prefix(2))
        XCTAssertNil(try decoder.next())
        decoder.append(frame[2..<6])
        XCTAssertNil(try decoder.next())
        XCTAssertNil(try decoder.next(), "asking again changes nothing")
        XCTAssertEqual(decoder.pendingByteCount, 6)
        decoder.append(frame[6...])
        XCTAssertEqual(try decoder.next().map(Array.init), Array("complete me".utf8))
    }

    func testExactlyMaxFrameSizeIsAccepted() throws {
        let payload = [UInt8](repeating: 0xAB, count: Framing.maxFrameSize)
        var decoder = FrameDecoder()
        var header: [UInt8] = []
        Framing.appendHeader(length: Framing.maxFrameSize, to: &header)
        decoder.append(header)
        XCTAssertNil(try decoder.next(), "a header at the limit waits for its payload")
        decoder.append(payload)
        let frame = try XCTUnwrap(try decoder.next())
        XCTAssertEqual(frame.count, Framing.maxFrameSize)
        XCTAssertTrue(frame.allSatisfy { $0 == 0xAB })
    }

    func testOneOverMaxFrameSizeThrowsBeforeThePayloadArrives() {
        var header: [UInt8] = []
        Framing.appendHeader(length: Framing.maxFrameSize + 1, to: &header)
        var decoder = FrameDecoder()
        decoder.append(header)
        XCTAssertThrowsError(try decoder.next()) { error in
            XCTAssertEqual(error as? FrameError, .oversized(Framing.maxFrameSize + 1))
        }
    }

    func testHugeLengthThrowsOversized() {
        var decoder = FrameDecoder()
        decoder.append([0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try decoder.next()) { error in
            XCTAssertEqual(error as? FrameError, .oversized(0xFFFF_FFFF))
        }
    }

    func testOversizedErrorTextNamesTheLimit() {
        let text = FrameError.oversized(5_000_000).description
        XCTAssertTrue(text.contains("5000000"), text)
        XCTAssertTrue(text.contains(String(Framing.maxFrameSize)), text)
    }

    func testLongStreamKeepsDecodingAfterCompaction() throws {
        // Many frames through one decoder, appended in uneven chunks, so the decoder's
        // internal buffer is compacted many times.
        let many = (0..<500).map { i in [UInt8](repeating: UInt8(i % 251), count: i % 37) }
        let bytes = many.flatMap(Framing.frame)
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        var offset = 0
        var chunk = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            decoder.append(bytes[offset..<end])
            frames += try drain(&decoder)
            offset = end
            chunk = chunk % 53 + 7
        }
        XCTAssertEqual(frames, many)
    }
}
