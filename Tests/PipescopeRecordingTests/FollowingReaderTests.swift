import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Following a recording while its writer writes it (`replay --follow`): the end of what is
/// written so far, a frame half-written included, is where the reader waits, never a cut or
/// damage; the reader reads on as bytes arrive, and tells how the writer left the file once
/// it lets go of it (its lock, which every writer holds).
final class FollowingReaderTests: XCTestCase {
    private var path: String!

    override func setUp() {
        path = NSTemporaryDirectory() + "/pipescope-follow-\(UUID().uuidString).pipescope"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: path) }

    /// A welcome, an empty snapshot and two batches, framed as a writer frames them.
    private func frames() -> [[UInt8]] {
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        var writer = WireStreamWriter()
        return [welcome, writer.message(GraphSnapshot()), writer.message(BatchFixtures.realisticBatch()),
                writer.message(BatchFixtures.deepChain(depth: 40))].map { $0.framed() }
    }

    /// The file opened as a writer opens it, holding its lock as every writer does.
    private func openAsWriter() throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        return fd
    }

    private func write(_ fd: Int32, _ bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        XCTAssertEqual(array.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, array.count) }, array.count)
    }

    /// Every message returned until the reader waits or ends.
    private func drain(_ reader: inout RecordingReader) throws -> Int {
        var count = 0
        while try reader.next() != nil { count += 1 }
        return count
    }

    func testAFrameHalfWrittenIsWaitedForAndReadWhenItsRestArrives() throws {
        let frames = frames()
        let fd = try openAsWriter()
        write(fd, RecordingFormat.magic + frames[0] + frames[1])
        var reader = try RecordingReader(path: path, chunkSize: 7)
        reader.follow = true
        XCTAssertTrue(reader.beingWritten)
        XCTAssertEqual(try drain(&reader), 2)
        XCTAssertTrue(reader.waiting, "the end of what is written, while the writer writes: more may come")

        // The third frame arrives a few bytes at a time: the header cut, then the payload cut.
        let third = frames[2]
        var sent = 0
        for cut in [2, Framing.headerSize + 1, third.count / 2, third.count - 1] {
            write(fd, third[sent..<cut])
            sent = cut
            XCTAssertNil(try reader.next(), "cut at \(cut) of \(third.count): not whole yet")
            XCTAssertTrue(reader.waiting, "cut at \(cut): waiting, not cut off or damaged")
            XCTAssertEqual(reader.messagesRead, 2)
        }
        write(fd, third.suffix(1))
        XCTAssertNotNil(try reader.next(), "the rest arrived: the whole batch")
        XCTAssertEqual(reader.messagesRead, 3)

        // The writer closes it: its last batch, its end mark, then it lets go.
        write(fd, frames[3] + RecordingFormat.endMark(reason: "the program ended"))
        close(fd)
        XCTAssertEqual(try drain(&reader), 1)
        XCTAssertFalse(reader.waiting)
        XCTAssertEqual(reader.endReason, "the program ended")
        XCTAssertEqual(reader.truncatedBytes, 0)
    }

    func testAWriterThatDiesInTheMiddleOfAFrameLeavesACutNotAWait() throws {
        let frames = frames()
        let fd = try openAsWriter()
        write(fd, RecordingFormat.magic + frames[0] + frames[1] + frames[2].prefix(10))
        var reader = try RecordingReader(path: path)
        reader.follow = true
        XCTAssertEqual(try drain(&reader), 2)
        XCTAssertTrue(reader.waiting)
        // What it wrote just before it died is read too: the lock is asked after the read.
        write(fd, frames[2].dropFirst(10).prefix(5))
        close(fd)  // a kill lets go of the lock as a close does
        XCTAssertEqual(try drain(&reader), 0)
        XCTAssertFalse(reader.waiting)
        XCTAssertFalse(reader.beingWritten)
        XCTAssertNil(reader.endReason)
        XCTAssertEqual(reader.truncatedBytes, 15)
    }

    func testWithoutFollowTheEndOfWhatIsWrittenIsTheEnd() throws {
        let frames = frames()
        let fd = try openAsWriter()
        defer { close(fd) }
        write(fd, RecordingFormat.magic + frames[0] + frames[1].prefix(4))
        var reader = try RecordingReader(path: path)
        XCTAssertTrue(reader.beingWritten)
        XCTAssertEqual(try drain(&reader), 1)
        XCTAssertFalse(reader.waiting)
        XCTAssertEqual(reader.truncatedBytes, 4)
    }

    /// A reader asking about the lock at the moment a writer opens the file (it holds a
    /// shared lock for an instant) does not leave the writer without its lock: the writer
    /// asks again.
    func testAWriterOpeningWhileAReaderAsksStillTakesItsLock() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(RecordingFormat.magic)))
        let asking = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertEqual(flock(asking, LOCK_SH | LOCK_NB), 0)
        let letGo = Thread {
            usleep(5_000)
            _ = flock(asking, LOCK_UN)
        }
        letGo.start()
        let writer = try RecordingWriter(path: path)
        defer {
            writer.close()
            close(asking)
        }
        writer.waitUntilWritten()
        XCTAssertTrue(try RecordingReader(path: path).beingWritten)
    }
}
