import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A recording exported or replayed while its program still writes it is not called
/// killed or crashed: its end is where the writer has got to, and the note says to run the
/// command again for the rest.
final class BeingWrittenExportTests: XCTestCase {
    func testARecordingStillBeingWrittenSaysSoAndExportsWhatIsWritten() throws {
        let path = NSTemporaryDirectory() + "/pipescope-writing-\(UUID().uuidString).pipescope"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".json")
        }
        let writer = try RecordingWriter.busy(at: path)

        var messages = try RecordingMessages(path: path)
        XCTAssertTrue(messages.beingWritten)
        let open = try RecordingExport.run(&messages, to: path + ".json", source: path)
        guard case .beingWritten(let read, let byte) = open.stop else { return XCTFail("\(open.stop)") }
        XCTAssertEqual(read, 3)
        XCTAssertEqual(byte, try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let note = open.stop.note(path: "busy.pipescope", events: 4, lastEventAt: "12:00:01.000", doing: "Exported")
        XCTAssertEqual(note, "busy.pipescope is still being written (the program recording it still runs): so far it ends "
            + "after 4 events at 12:00:01.000. Exported those events; run the command again for newer ones, "
            + "or after the program ends for all of them.")

        var replayed = try Recording.read(path: path)
        XCTAssertEqual(replayed.end, .beingWritten(afterMessages: 3, atByte: byte))

        writer.close()
        messages = try RecordingMessages(path: path)
        XCTAssertFalse(messages.beingWritten)
        XCTAssertEqual(try RecordingExport.run(&messages, to: path + ".json", source: path).stop, .complete)
        replayed = try Recording.read(path: path)
        XCTAssertEqual(replayed.end, .complete)
    }

    /// A file without its end mark and with no writer holding it is still one whose writer
    /// stopped: the lock is the writer's, not the file's.
    func testAnUnclosedRecordingNobodyWritesIsUnfinished() throws {
        let path = NSTemporaryDirectory() + "/pipescope-unclosed-\(UUID().uuidString).pipescope"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try RecordingWriter(path: path)
        writer.append(GraphSnapshot())
        writer.close()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var reader = try RecordingReader(bytes: bytes)
        var whole = 0
        while try reader.next() != nil { whole = reader.bytesRead }
        bytes.removeLast(bytes.count - whole)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let replayed = try Recording.read(path: path)
        guard case .unfinished = replayed.end else { return XCTFail("\(replayed.end)") }
        XCTAssertTrue(replayed.end.note(path: "r", events: 0, lastEventAt: nil, doing: "Replaying")?
            .contains("killed or crashed") ?? false)
    }
}
