import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A recording truncated or corrupted anywhere is read by replay's reader and by the
/// export up to where it stops, and says how it stops: never a crash, never a hang.
final class DamagedRecordingTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Reads `bytes` as replay and export do; what they said about its end.
    private func read(_ bytes: Data, _ name: String) throws -> (replay: Recording?, export: RecordingEnd?, error: String?) {
        let path = directory + "/" + name
        try bytes.write(to: URL(fileURLWithPath: path))
        let replay: Recording
        do {
            replay = try Recording.read(path: path)
        } catch {
            // Only a file that is not a recording at all is refused.
            var exportError = ""
            XCTAssertThrowsError(try RecordingMessages(path: path)) { exportError = "\($0)" }
            XCTAssertEqual("\(error)", exportError, "replay and export refuse it alike")
            return (nil, nil, "\(error)")
        }
        var messages = try RecordingMessages(path: path, chunkSize: 97)
        let result = try RecordingExport.run(&messages, to: path + ".json", source: path)
        XCTAssertEqual(result.summary.events, replay.eventsRead, "\(name): export and replay read the same events")
        return (replay, result.stop, nil)
    }

    func testTruncatedAtRandomOffsetsEachGivesTheCutOrNotARecording() throws {
        let whole = directory + "/whole.pipescope"
        try KnownPipelines.write(to: whole)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: whole))
        let complete = try read(bytes, "complete.pipescope")
        XCTAssertEqual(complete.export, .complete)
        XCTAssertEqual(complete.replay?.endReason, "the recording was closed")
        let offsets = (0..<60).map { _ in Int.random(in: 0..<bytes.count) } + [0, 1, RecordingFormat.magic.count - 1,
                                                                               RecordingFormat.magic.count, bytes.count - 1]
        for offset in offsets {
            let (replay, stop, error) = try read(bytes.prefix(offset), "cut-\(offset).pipescope")
            guard let replay, let stop else {
                XCTAssertLessThan(offset, RecordingFormat.magic.count, "cut at \(offset): \(error ?? "")")
                XCTAssertTrue(error?.contains("not a Pipescope recording") == true, error ?? "")
                continue
            }
            XCTAssertNil(replay.damage, "cut at \(offset)")
            XCTAssertNil(replay.endReason, "cut at \(offset): the end mark is the last thing written")
            XCTAssertLessThanOrEqual(replay.eventsRead, complete.replay!.eventsRead)
            XCTAssertEqual(replay.bytesRead + replay.truncatedBytes, offset, "cut at \(offset): read and cut add up")
            switch stop {
            case .truncated(let cut, _, let at):
                XCTAssertEqual([cut, at], [replay.truncatedBytes, replay.bytesRead], "cut at \(offset)")
            case .unfinished(_, let at):
                XCTAssertEqual([replay.truncatedBytes, at], [0, offset], "cut at \(offset), between two messages")
            case .complete, .damaged, .beingWritten:
                XCTFail("cut at \(offset): \(stop)")
            }
        }
    }

    func testCorruptedAtRandomOffsetsEachGivesAnErrorOrWhatCanBeRead() throws {
        let whole = directory + "/whole.pipescope"
        try KnownPipelines.write(to: whole)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: whole))
        for round in 0..<80 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...4) {
                damaged[Int.random(in: 0..<damaged.count)] = UInt8.random(in: 0...255)
            }
            let (replay, stop, error) = try read(damaged, "damaged-\(round).pipescope")
            guard let replay, let stop else {
                XCTAssertTrue(error?.contains("not a Pipescope recording") == true, error ?? "")
                continue
            }
            if let damage = replay.damage {
                guard case .damaged(let reason, _, let at) = stop else { return XCTFail("round \(round): \(stop)") }
                XCTAssertEqual(reason, damage)
                XCTAssertEqual(at, replay.bytesRead)
                XCTAssertLessThan(at, bytes.count)
            }
        }
    }

    func testAZeroTailIsACutNotDamage() throws {
        // A power loss can leave a file's last blocks as zeros.
        let whole = directory + "/whole.pipescope"
        try KnownPipelines.write(to: whole)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: whole))
        let endMark = RecordingFormat.endMark(reason: "the recording was closed").count
        let unclosed = bytes.dropLast(endMark)
        for zeros in [1, 3, 4, 5, 4096, 70_000] {
            let (replay, stop, _) = try read(unclosed + Data(count: zeros), "zeros-\(zeros).pipescope")
            XCTAssertNil(replay?.damage, "\(zeros) zeros")
            XCTAssertEqual(replay?.truncatedBytes, zeros)
            XCTAssertEqual(replay?.bytesRead, unclosed.count)
            XCTAssertEqual(stop, .truncated(bytes: zeros, afterMessages: 5, atByte: unclosed.count))
        }
        // Zeros with something after them are damage, not a cut.
        let (replay, stop, _) = try read(unclosed + Data(count: 8) + Data([1]), "zeros-then-one.pipescope")
        XCTAssertNotNil(replay?.damage)
        XCTAssertEqual(stop.map(\.isDamaged), true)
    }
}
