import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A program that crashes leaves a recording cut in the middle of a frame: the export
/// draws everything before the cut and says where it stopped.
final class TruncatedRecordingTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testACutRecordingExportsEverythingBeforeTheCutAndSaysWhere() throws {
        let whole = directory + "/whole.pipescope"
        try KnownPipelines.write(to: whole)
        // As the program left it, killed before it could close the file (no end mark).
        let endMark = RecordingFormat.endMark(reason: "the recording was closed").count
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: whole)).dropLast(endMark)
        // Without its last batch: where the cut file's last complete message ends.
        let twoBatches = directory + "/two.pipescope"
        try KnownPipelines.write(to: twoBatches, batches: Array(KnownPipelines.batches().prefix(2)))
        let completeBytes = try XCTUnwrap(FileManager.default.contents(atPath: twoBatches)).count - endMark

        for cut in [1, 5, (bytes.count - completeBytes) - 1] {
            let path = directory + "/cut-\(cut).pipescope"
            try bytes.dropLast(cut).write(to: URL(fileURLWithPath: path))
            let (trace, result) = try TraceFile.export(path)
            XCTAssertEqual(result.stop, .truncated(bytes: bytes.count - completeBytes - cut, afterMessages: 4, atByte: completeBytes),
                           "cut \(cut)")
            XCTAssertTrue(result.stop.description.contains("exported its 4 complete messages, up to byte \(completeBytes)"))
            // Everything of the first two batches is there.
            let slices = trace.slicesByStage
            XCTAssertEqual(Set(slices.keys), [1, 2, 3, 10, 11, 12, 20, 21, 22, 6, 7, 40, 41, 50, 4, 5, 30, 31, 60])
            XCTAssertEqual(trace.named("value").count, 33)
            // 31's cancel was in the lost batch: it is live when the recording stops.
            XCTAssertEqual(TraceFile.arg(slices[31]![0], "live_at_end") as? Bool, true)
            let ending = try XCTUnwrap(trace.named("recording ends").first)
            XCTAssertEqual(ending["s"] as? String, "p")
            XCTAssertEqual(TraceFile.arg(ending, "why") as? String, result.stop.description)
            let other = try XCTUnwrap(trace.document["otherData"] as? [String: Any])
            XCTAssertEqual(other["stopped"] as? String, result.stop.description)
            XCTAssertEqual(TrackLayout(trace).problems, [])
        }
    }

    func testARecordingCutInItsFirstLineIsNotARecording() throws {
        let path = directory + "/short.pipescope"
        try Data("PIPESCOPE REC".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try RecordingMessages(path: path)) { error in
            XCTAssertTrue("\(error)".contains("not a Pipescope recording"), "\(error)")
        }
    }

    func testAMissingFileSaysWhatToDo() {
        XCTAssertThrowsError(try RecordingMessages(path: directory + "/nope.pipescope")) { error in
            XCTAssertTrue("\(error)".contains("no such file"), "\(error)")
            XCTAssertTrue("\(error)".contains("pipescope record"), "\(error)")
        }
        XCTAssertThrowsError(try RecordingMessages(path: directory)) { error in
            XCTAssertTrue("\(error)".contains("it is a directory"), "\(error)")
        }
    }

    func testAnUnwritableOutputSaysWhatToDo() throws {
        let path = directory + "/known.pipescope"
        try KnownPipelines.write(to: path)
        var recording = try RecordingMessages(path: path)
        XCTAssertThrowsError(try RecordingExport.run(&recording, to: directory + "/missing/dir/out.json")) { error in
            XCTAssertTrue("\(error)".contains("does not exist"), "\(error)")
            XCTAssertTrue("\(error)".contains("Choose another file with -o"), "\(error)")
        }
        XCTAssertThrowsError(try RecordingExport.run(&recording, to: directory)) { error in
            XCTAssertTrue("\(error)".contains("it is a directory"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".partial") }, [],
                       "no half-written file is left behind")
    }
}
