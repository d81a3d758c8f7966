import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

final class RecordingFormatTests: XCTestCase {
    private func messages() -> [ServerMessage] {
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        welcome.welcome.pid = 42
        var snapshot = ServerMessage()
        snapshot.snapshot.sequence = 0
        var writer = WireStreamWriter()
        return [welcome, snapshot, writer.message(BatchFixtures.realisticBatch())]
    }

    private func file(_ messages: [ServerMessage]) -> [UInt8] {
        RecordingFormat.magic + messages.flatMap { $0.framed() }
    }

    func testRoundTrip() throws {
        let contents = try RecordingFormat.read(file(messages()))
        XCTAssertEqual(contents.messages, messages())
        XCTAssertFalse(contents.truncated)
    }

    func testWriterProducesWhatTheReaderReads() throws {
        let path = NSTemporaryDirectory() + "/pipescope-\(UUID().uuidString).rec"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try RecordingWriter(path: path)
        writer.append(messages()[0])
        writer.append(GraphSnapshot())
        writer.append(BatchFixtures.realisticBatch())
        writer.close()
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertEqual(try RecordingFormat.read(data).messages, messages())
    }

    func testTheWriterPacksBatchesAndNamesTravelOnce() throws {
        let path = NSTemporaryDirectory() + "/pipescope-\(UUID().uuidString).rec"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try RecordingWriter(path: path)
        writer.append(messages()[0])
        writer.append(GraphSnapshot())
        writer.append(BatchFixtures.realisticBatch())
        writer.append(BatchFixtures.realisticBatch())
        writer.close()
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        // Raw frames, without the reader's unpacking: what is actually on disk.
        var frames = FrameDecoder()
        frames.append(Array(bytes).dropFirst(RecordingFormat.magic.count))
        var raw: [ServerMessage] = []
        var endReason: String?
        while let payload = try frames.next() {
            if let reason = RecordingFormat.endReason(of: payload) {
                endReason = reason  // the end mark, which is no message
                continue
            }
            raw.append(try ServerMessage.decode(payload: payload))
        }
        XCTAssertEqual(endReason, "the recording was closed")
        XCTAssertEqual(raw.count, 4)
        XCTAssertFalse(raw[2].packed.newStrings.isEmpty)
        XCTAssertTrue(raw[3].packed.newStrings.isEmpty, "the second batch refers to names by id")
        var reader = WireStreamReader()
        let read = try RecordingFormat.read(bytes).messages
        _ = try reader.batch(read[2].packed)
        XCTAssertEqual(try reader.batch(read[3].packed), BatchFixtures.realisticBatch())
    }

    /// Recordings made by version 1 (unpacked batches) still replay.
    func testAVersionOneRecordingStillReads() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/demo-v1.pipescope").path
        let contents = try RecordingFormat.read(XCTUnwrap(FileManager.default.contents(atPath: path)))
        let batches = contents.messages.filter { $0.batch.events.count > 0 }
        XCTAssertGreaterThan(batches.count, 10)
        let operators = Set(batches.flatMap { $0.batch.nodes.map(\.operator) }
            + contents.messages.flatMap { $0.snapshot.nodes.map(\.info.operator) })
        XCTAssertTrue(operators.isSuperset(of: ["Map", "Filter", "FlatMap", "Future", "TryMap"]), "\(operators)")
    }

    func testATruncatedTailReplaysEverythingBeforeIt() throws {
        let whole = file(messages())
        for cut in 1..<messages().last!.framed().count {
            let contents = try RecordingFormat.read(whole.dropLast(cut))
            XCTAssertEqual(contents.messages.count, 2, "cut \(cut) bytes: the last frame is incomplete")
            XCTAssertTrue(contents.truncated)
        }
    }

    func testSomethingElseIsNotARecording() {
        XCTAssertThrowsError(try RecordingFormat.read([UInt8]())) { error in
            XCTAssertEqual(error as? RecordingFormat.ReadError, .empty)
            XCTAssertTrue("\(error)".hasPrefix("this file is empty, not a Pipescope recording"), "\(error)")
        }
        for bytes in [Array("PIPESCOPE".utf8), Array("{\"nodes\": []}".utf8)] as [[UInt8]] {
            XCTAssertThrowsError(try RecordingFormat.read(bytes)) { error in
                XCTAssertEqual(error as? RecordingFormat.ReadError, .notARecording)
                XCTAssertTrue("\(error)".contains("pipescope record"))
            }
        }
    }

    func testDamageInTheMiddleIsReportedWithWhereItIs() {
        var bytes = file(messages())
        let second = RecordingFormat.magic.count + messages()[0].framed().count
        bytes[second] = 0x7F  // the second frame's length becomes absurd
        XCTAssertThrowsError(try RecordingFormat.read(bytes)) { error in
            guard case .corrupt(let after, _)? = error as? RecordingFormat.ReadError else { return XCTFail("\(error)") }
            XCTAssertEqual(after, 1)
        }
    }
}
