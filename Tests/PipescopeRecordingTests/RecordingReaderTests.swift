import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Reading a recording one message at a time gives what reading it whole gives, however
/// the file arrives in chunks, and says where a cut-off or damaged file stops.
final class RecordingReaderTests: XCTestCase {
    private func messages() -> [ServerMessage] {
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        welcome.welcome.pid = 42
        var writer = WireStreamWriter()
        return [welcome, writer.message(GraphSnapshot()), writer.message(BatchFixtures.realisticBatch()),
                writer.message(BatchFixtures.deepChain(depth: 40))]
    }

    private func file() -> [UInt8] { RecordingFormat.magic + messages().flatMap { $0.framed() } }

    private func readAll(_ reader: inout RecordingReader) throws -> [ServerMessage] {
        var out: [ServerMessage] = []
        while let message = try reader.next() { out.append(message) }
        return out
    }

    func testAnyChunkSizeReadsTheSameMessagesAsReadingWhole() throws {
        let whole = try RecordingFormat.read(file()).messages
        for chunk in [1, 3, 7, 64, 4096, 1 << 20] {
            var reader = try RecordingReader(bytes: file(), chunkSize: chunk)
            XCTAssertEqual(try readAll(&reader), whole, "chunks of \(chunk)")
            XCTAssertEqual(reader.messagesRead, whole.count)
            XCTAssertEqual(reader.bytesRead, file().count)
            XCTAssertEqual(reader.truncatedBytes, 0)
        }
    }

    /// A snapshot in parts is one message, and every part's bytes count as read, not
    /// only its last part's: `bytesRead` is where the next message starts (a replay's
    /// `reading … of … MB`, and where following a recording resumes).
    func testASnapshotInPartsCountsEveryPartsBytes() throws {
        var writer = WireStreamWriter()
        let whole = writer.message(Graph.folding(BatchFixtures.deepChain(depth: 60)).snapshot()).snapshot
        let parts = SnapshotParts.frames(whole, partBytes: 300)
        XCTAssertGreaterThan(parts.count, 3, "the snapshot is in parts")
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        let head = RecordingFormat.magic + welcome.framed()
        let bytes = head + Array(parts.joined()) + writer.message(BatchFixtures.realisticBatch()).framed()
        var reader = try RecordingReader(bytes: bytes, chunkSize: 64)
        XCTAssertEqual(try reader.next()?.welcome.processName, "app")
        XCTAssertEqual(try reader.next()?.snapshot, whole, "the parts, joined")
        XCTAssertEqual(reader.messagesRead, 2)
        XCTAssertEqual(reader.bytesRead, head.count + parts.reduce(0) { $0 + $1.count }, "every part is read")
        XCTAssertNotNil(try reader.next())
        XCTAssertNil(try reader.next())
        XCTAssertEqual(reader.bytesRead, bytes.count)
    }

    func testACutFileEndsAtItsLastCompleteMessageAndSaysWhere() throws {
        let bytes = file()
        let lastFrame = messages().last!.framed().count
        for cut in [1, 2, 4, 5, lastFrame - 1] {
            var reader = try RecordingReader(bytes: Array(bytes.dropLast(cut)), chunkSize: 5)
            XCTAssertEqual(try readAll(&reader).count, 3, "cut \(cut)")
            XCTAssertEqual(reader.bytesRead, bytes.count - lastFrame)
            XCTAssertEqual(reader.truncatedBytes, lastFrame - cut)
        }
    }

    func testMemoryHoldsAChunkNotTheFile() throws {
        var fetched: [Int] = []
        let bytes = file()
        var offset = 0
        var reader = try RecordingReader(chunkSize: 256) { count in
            fetched.append(count)
            let end = min(bytes.count, offset + count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
        XCTAssertLessThan(reader.bytesFetched, bytes.count, "opening reads only the first chunk")
        _ = try reader.next()
        XCTAssertFalse(fetched.isEmpty)
        XCTAssertTrue(fetched.allSatisfy { $0 == 256 })
        XCTAssertEqual(try readAll(&reader).count, 3)
    }

    func testDamageInTheMiddleSaysAfterWhichMessage() throws {
        var bytes = file()
        let second = RecordingFormat.magic.count + messages()[0].framed().count
        bytes[second] = 0x7F
        var reader = try RecordingReader(bytes: bytes, chunkSize: 16)
        XCTAssertNotNil(try reader.next())
        XCTAssertThrowsError(try reader.next()) { error in
            guard case .corrupt(let after, let reason)? = error as? RecordingFormat.ReadError else { return XCTFail("\(error)") }
            XCTAssertEqual(after, 1)
            XCTAssertTrue(reason.contains("refused"), reason)
        }
    }

    func testFilesThatAreNotRecordings() throws {
        XCTAssertThrowsError(try RecordingReader(bytes: Array("PIPESCOPE".utf8))) { error in
            XCTAssertEqual(error as? RecordingFormat.ReadError, .notARecording)
        }
        XCTAssertThrowsError(try RecordingReader(path: "/nonexistent/file.pipescope")) { error in
            XCTAssertEqual(error as? RecordingFormat.OpenError,
                           RecordingFormat.OpenError(path: "/nonexistent/file.pipescope", reason: "no such file"))
        }
        XCTAssertThrowsError(try RecordingReader(path: NSTemporaryDirectory())) { error in
            XCTAssertTrue("\(error)".contains("it is a directory"), "\(error)")
        }
    }
}
