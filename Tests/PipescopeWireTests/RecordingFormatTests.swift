import Foundation
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
        var batch = ServerMessage()
        batch.batch = WireFixtures.realisticBatch()
        return [welcome, snapshot, batch]
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
        for m in messages() { writer.append(m) }
        writer.close()
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertEqual(try RecordingFormat.read(data).messages, messages())
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
        for bytes in [[], Array("PIPESCOPE".utf8), Array("{\"nodes\": []}".utf8)] as [[UInt8]] {
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
