import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// The recording writer: a closed recording ends with its end mark; one that is not
/// closed has none and says so; a disk that fails stops the recording with words, once,
/// and appending after that is harmless.
final class RecordingWriterTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func welcome() -> ServerMessage {
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        welcome.welcome.pid = 42
        return welcome
    }

    private func readAll(_ bytes: [UInt8]) throws -> RecordingReader {
        var reader = try RecordingReader(bytes: bytes, chunkSize: 7)
        while try reader.next() != nil {}
        return reader
    }

    func testAClosedRecordingEndsWithItsEndMarkAndReason() throws {
        let path = directory + "/closed.pipescope"
        let writer = try RecordingWriter(path: path)
        writer.append(welcome())
        writer.append(GraphSnapshot())
        writer.append(batches: BatchFixtures.realisticBatch().parts(budget: 200))
        writer.close(reason: "the program exited")
        writer.close(reason: "twice")
        XCTAssertNil(writer.failure)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertEqual(Array(bytes.suffix(RecordingFormat.endMark(reason: "the program exited").count)),
                       RecordingFormat.endMark(reason: "the program exited"))
        let reader = try readAll(Array(bytes))
        XCTAssertEqual(reader.endReason, "the program exited")
        XCTAssertEqual(reader.messagesRead, writer.messageCount)
        XCTAssertEqual(reader.bytesRead, bytes.count)
        XCTAssertEqual(reader.truncatedBytes, 0)
        let whole = try RecordingFormat.read(bytes)
        XCTAssertEqual(whole.endReason, "the program exited")
        XCTAssertEqual(whole.messages.count, writer.messageCount)
    }

    func testWithoutItsEndMarkARecordingSaysItWasNotClosed() throws {
        var stream = WireStreamWriter()
        let bytes = RecordingFormat.magic + welcome().framed() + stream.message(BatchFixtures.realisticBatch()).framed()
        let reader = try readAll(bytes)
        XCTAssertNil(reader.endReason)
        XCTAssertEqual(reader.messagesRead, 2)
        XCTAssertEqual(reader.truncatedBytes, 0)
    }

    func testBytesAfterTheEndMarkAreDamage() throws {
        let bytes = RecordingFormat.magic + welcome().framed() + RecordingFormat.endMark(reason: "done")
        for extra in [welcome().framed(), [0, 0], Array(RecordingFormat.endMark(reason: "again"))] {
            var reader = try RecordingReader(bytes: bytes + extra, chunkSize: 5)
            XCTAssertNotNil(try reader.next())
            XCTAssertThrowsError(try reader.next()) { error in
                guard case .corrupt(let after, let reason)? = error as? RecordingFormat.ReadError else { return XCTFail("\(error)") }
                XCTAssertEqual(after, 1)
                XCTAssertTrue(reason.hasSuffix("bytes follow the recording's end mark"), reason)
            }
        }
    }

    func testAnEmptyFrameIsDamageUnlessZerosRunToTheEnd() throws {
        let head = RecordingFormat.magic + welcome().framed()
        var reader = try RecordingReader(bytes: head + [0, 0, 0, 0] + welcome().framed())
        XCTAssertNotNil(try reader.next())
        XCTAssertThrowsError(try reader.next()) { XCTAssertTrue("\($0)".contains("an empty frame"), "\($0)") }
        let zeros = try readAll(head + [UInt8](repeating: 0, count: 10))
        XCTAssertEqual([zeros.messagesRead, zeros.bytesRead, zeros.truncatedBytes], [1, head.count, 10])
    }

    func testAFullDiskStopsTheRecordingOnceWithWords() throws {
        let reported = LockedCount()
        let writer = try RecordingWriter(path: "/dev/full") { failure in reported.add("\(failure)") }
        writer.append(welcome())
        writer.append(BatchFixtures.realisticBatch())
        writer.close(reason: "done")  // waits for the writer's thread, which stopped at the first write
        let failure = try XCTUnwrap(writer.failure)
        XCTAssertEqual(failure.reason, "the disk is full (no space left on device)")
        XCTAssertEqual(failure.events, 0)
        XCTAssertEqual("\(failure)", "the recording to /dev/full stopped after 0 events: the disk is full "
            + "(no space left on device). The program runs on, unrecorded; the file replays up to there.")
        writer.append(BatchFixtures.realisticBatch())  // after the failure: dropped, harmless
        XCTAssertEqual(reported.lines, ["\(failure)"], "reported once")
    }

    func testADiskThatCannotKeepUpStopsTheRecordingInsteadOfGrowingItsQueue() throws {
        let writer = try RecordingWriter(path: directory + "/slow.pipescope", queueLimit: 8)
        writer.append(welcome())
        writer.close()
        XCTAssertEqual(writer.failure?.reason, "the disk did not keep up: more than 8 bytes waited to be written")
    }

    func testAPathThatCannotBeOpenedSaysWhyAndWhatToDo() {
        let cases = [
            (directory + "/missing/r.pipescope", "the directory \(directory!)/missing does not exist; create it, or choose another path"),
            (directory!, "it is a directory; give the path of a file to write, for example \(directory!)/session.pipescope"),
            // Refused to root as well: sysfs makes no files.
            ("/sys/r.pipescope", "it is not writable (permission denied); check the permissions of the file and its directory"),
            ("/etc/passwd/r.pipescope", "not a directory; choose another path"),
        ]
        for (path, reason) in cases {
            XCTAssertThrowsError(try RecordingWriter(path: path)) { error in
                XCTAssertEqual("\(error)", "cannot write a recording at \(path): \(reason)")
            }
        }
    }
}

/// Lines reported from another thread.
private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ line: String) { lock.lock(); stored.append(line); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}
