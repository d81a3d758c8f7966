import Foundation
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `replay` and `export` of files that are not recordings, or are cut or corrupted
/// anywhere: a clear error or the note of where the recording ends, and an exit status of
/// 0 or 1, never a crash (a signal) or a hang (Programs.run kills it after 30 s: a signal).
final class DamagedRecordingCommandTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private let advice = "Make one with `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE."

    /// Runs replay --print and export on `path`; both must exit 0 or 1 and say something.
    private func both(_ path: String) throws -> (replay: Programs.Output, export: Programs.Output) {
        let replay = try Programs.run(Programs.pipescope, ["replay", path, "--print"])
        let export = try Programs.run(Programs.pipescope, ["export", path, "-o", path + ".json"])
        for (name, out) in [("replay", replay), ("export", export)] {
            XCTAssertTrue([0, 1].contains(out.status), "\(name) \(path): status \(out.status): \(out.stderr)")
        }
        return (replay, export)
    }

    func testFilesThatAreNotRecordingsGetAClearError() throws {
        let empty = directory + "/empty.pipescope"
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: nil))
        let cases = [
            ("/etc/passwd", "pipescope: /etc/passwd: this file is not a Pipescope recording (it does not start with the "
                + "line PIPESCOPE RECORDING 1). \(advice)\n"),
            (empty, "pipescope: \(empty): this file is empty, not a Pipescope recording (a recording killed as it "
                + "started leaves one). \(advice)\n"),
            (directory!, "pipescope: cannot read \(directory!): it is a directory. Give the path of a file made by "
                + "`pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE.\n"),
        ]
        for (path, said) in cases {
            let (replay, export) = try both(path)
            XCTAssertEqual([replay.status, export.status], [1, 1], path)
            XCTAssertEqual(replay.stderr, said)
            XCTAssertEqual(export.stderr, said)
            XCTAssertEqual(replay.stdout, "")
        }
    }

    func testARealRecordingCutOrCorruptedAtRandomOffsetsSaysWhereItEnds() throws {
        // A recording the example made of itself, closed (its end mark) when it exited.
        let file = directory + "/whole.pipescope"
        let status = try Programs.runExampleToExit(environment: [
            "PIPESCOPE_SOCKET": directory + "/whole.sock", "PIPESCOPE_RECORD": file,
            "EXAMPLE_SEND_LIMIT": "40", "EXAMPLE_RATE": "200", "EXAMPLE_EXIT": "1",
        ])
        XCTAssertEqual(status, 0)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: file))
        XCTAssertGreaterThan(bytes.count, RecordingFormat.magic.count)
        let snapshotEnds = try Self.firstSnapshotEnd(of: Array(bytes))

        // Every tenth of the file, and random places: a cut that keeps a stage replays what
        // it holds (status 0, the note of where it ends, the stages); one inside the first
        // snapshot, or before any batch that makes a stage (the example records from its
        // start, so its first snapshot has none), has nothing to show and says so (status
        // 1, no trace left behind). Never "0 stages" and status 0.
        let tenths = (1...9).map { bytes.count * $0 / 10 }
        let random = (0..<6).map { _ in Int.random(in: RecordingFormat.magic.count..<bytes.count) }
        var shown = 0
        for offset in tenths + random + [snapshotEnds - 1, snapshotEnds] {
            let cut = directory + "/cut-\(offset).pipescope"
            try bytes.prefix(offset).write(to: URL(fileURLWithPath: cut))
            let (replay, export) = try both(cut)
            if offset < snapshotEnds {
                XCTAssertEqual([replay.status, export.status], [1, 1], "cut at \(offset) of \(bytes.count)")
                let said = "pipescope: \(cut) ends inside its first snapshot (the program's graph, which a recording "
                    + "starts with): "
                XCTAssertTrue(replay.stderr.hasPrefix(said), "cut at \(offset): \(replay.stderr)")
                XCTAssertTrue(replay.stderr.hasSuffix("No stage can be shown. A copy cut short (an interrupted transfer, "
                                                      + "`head -c`)? Copy the whole file again. A program killed while "
                                                      + "writing it? Record it again.\n"), replay.stderr)
                XCTAssertEqual(replay.stdout, "")
                XCTAssertTrue(export.stderr.hasPrefix(said), export.stderr)
                XCTAssertTrue(export.stderr.hasSuffix(" Nothing was written to \(cut).json.\n"), export.stderr)
                XCTAssertFalse(FileManager.default.fileExists(atPath: cut + ".json"), "no empty trace is left")
                continue
            }
            XCTAssertFalse(replay.stdout.contains(" 0 stages"), "cut at \(offset): \(replay.stdout)")
            if replay.status == 1 {
                let said = "pipescope: \(cut) holds no stage: its first snapshot had none (no pipeline yet when "
                    + "recording began), and it ends "
                XCTAssertTrue(replay.stderr.hasPrefix(said), "cut at \(offset): \(replay.stderr)")
                XCTAssertEqual(export.status, 1, export.stderr)
                XCTAssertTrue(export.stderr.hasPrefix(said), export.stderr)
                continue
            }
            shown += 1
            XCTAssertEqual([replay.status, export.status], [0, 0], "cut at \(offset): \(replay.stderr)")
            let note = "pipescope: \(cut): the recording ends after "
            XCTAssertTrue(replay.stderr.hasPrefix(note), "cut at \(offset): \(replay.stderr)")
            XCTAssertTrue(replay.stderr.contains("or the file is a copy cut short"), replay.stderr)
            XCTAssertTrue(replay.stdout.contains("Sink"), "cut at \(offset): its stages are shown: \(replay.stdout)")
            XCTAssertTrue(export.stderr.contains(String(note.dropFirst("pipescope: ".count))), export.stderr)
        }
        XCTAssertGreaterThan(shown, 0, "the later tenths replay the pipelines they hold")

        // The frame after the first snapshot (the batch that makes the example's stages)
        // given a length past the limit: damaged before any stage, nothing to show.
        var early = bytes
        for i in snapshotEnds..<(snapshotEnds + 4) { early[i] = 0xFF }
        let earlyPath = directory + "/damaged-early.pipescope"
        try early.write(to: URL(fileURLWithPath: earlyPath))
        let damagedEarly = try both(earlyPath)
        XCTAssertEqual([damagedEarly.replay.status, damagedEarly.export.status], [1, 1])
        XCTAssertTrue(damagedEarly.replay.stderr.hasPrefix("pipescope: \(earlyPath) holds no stage: its first snapshot had "
                                                           + "none (no pipeline yet when recording began), and it is "
                                                           + "damaged at byte \(snapshotEnds), "), damagedEarly.replay.stderr)
        XCTAssertTrue(damagedEarly.replay.stderr.hasSuffix("before any batch that makes one. No stage can be shown.\n"),
                      damagedEarly.replay.stderr)

        for round in 0..<12 {
            var damaged = bytes
            let at = Int.random(in: snapshotEnds..<bytes.count)
            damaged[at] = damaged[at] &+ UInt8.random(in: 1...255)
            let corrupt = directory + "/corrupt-\(round).pipescope"
            try damaged.write(to: URL(fileURLWithPath: corrupt))
            let read = try both(corrupt)
            // Damage names its byte; a change that still reads is not noticed (no checksums).
            // Damage before any batch that makes a stage leaves nothing to show, and says so.
            if read.replay.status == 1, read.replay.stderr.contains(" holds no stage: ") {
                XCTAssertTrue(read.replay.stderr.hasPrefix("pipescope: \(corrupt) holds no stage: its first snapshot had "
                                                           + "none (no pipeline yet when recording began), and it is damaged "
                                                           + "at byte "), "changed byte \(at): \(read.replay.stderr)")
                XCTAssertEqual(read.export.status, 1, read.export.stderr)
            } else if read.replay.status == 1 {
                XCTAssertTrue(read.replay.stderr.hasPrefix("pipescope: \(corrupt) is a damaged recording: at byte "),
                              "changed byte \(at): \(read.replay.stderr)")
                XCTAssertTrue(read.replay.stderr.hasSuffix("Nothing after that can be read. Replaying everything before it.\n"),
                              read.replay.stderr)
            }
        }
    }

    /// The byte where the recording's first snapshot ends: a cut before it has no stage.
    private static func firstSnapshotEnd(of bytes: [UInt8]) throws -> Int {
        var reader = try RecordingReader(bytes: bytes)
        while let message = try reader.next() {
            if case .snapshot? = message.body { return reader.bytesRead }
        }
        XCTFail("the recording has no snapshot")
        return bytes.count
    }
}
