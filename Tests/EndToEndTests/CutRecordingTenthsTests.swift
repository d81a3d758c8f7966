import Foundation
import PipescopeRecording
import PipescopeTestSupport
import XCTest

/// #42's "cut recordings (every 10 % of a real recording) either replay what they hold or
/// exit non-zero with a message that names what is missing; never 0 stages with exit 0",
/// on a recording whose first snapshot is most of its start: `pipescope record` attached
/// to a program that already has 300 pipelines. `replay --print`, `--json`, `export` and
/// the inspector are each checked at every tenth.
final class CutRecordingTenthsTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The byte where the file's first snapshot ends (nil while it is not whole yet).
    private func firstSnapshotEnd(_ path: String) -> Int? {
        guard let bytes = FileManager.default.contents(atPath: path), var reader = try? RecordingReader(bytes: Array(bytes))
        else { return nil }
        while let message = try? reader.next() {
            if case .snapshot? = message.body { return reader.bytesRead }
        }
        return nil
    }

    /// A recording whose first snapshot holds 900 stages and more, then about as many bytes
    /// of batches again; and where its first snapshot ends.
    private func recordingWithALargeFirstSnapshot() throws -> (bytes: [UInt8], snapshotEnd: Int) {
        let program = try ExampleProgram(socketPath: directory + "/big.sock",
                                         environment: ["EXAMPLE_PIPELINES": "300", "EXAMPLE_RATE": "1000"])
        defer { program.stop() }
        XCTAssertTrue(eventually(timeout: 60) {
            guard let out = try? Programs.run(Programs.pipescope, ["snapshot", program.socketPath, "--json"]),
                  let document = (try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8))) as? [String: Any]
            else { return false }
            return (document["nodes"] as? [Any])?.count ?? 0 >= 900
        }, "the program made its 300 idle pipelines")
        let file = directory + "/big.pipescope"
        let recorder = try Programs.startRecording(program.socketPath, to: file)
        var snapshotEnd = 0
        XCTAssertTrue(eventually(timeout: 60) {
            snapshotEnd = self.firstSnapshotEnd(file) ?? 0
            return snapshotEnd > 0 && self.size(file) >= 2 * snapshotEnd
        }, "the recording has its snapshot and as many bytes of batches after it (\(size(file)) bytes)")
        program.stop()
        recorder.waitUntilExit()
        return (Array(try XCTUnwrap(FileManager.default.contents(atPath: file))), snapshotEnd)
    }

    func testEveryTenthOfARecordingWithALargeFirstSnapshotReplaysWhatItHoldsOrSaysWhatIsMissing() throws {
        let (bytes, snapshotEnd) = try recordingWithALargeFirstSnapshot()
        XCTAssertGreaterThan(snapshotEnd, 50_000, "a large first snapshot")
        var inside = 0, after = 0
        for tenth in 1...9 {
            let offset = bytes.count * tenth / 10
            let cut = directory + "/cut-\(tenth)0.pipescope"
            try Data(bytes.prefix(offset)).write(to: URL(fileURLWithPath: cut))
            let print = try Programs.run(Programs.pipescope, ["replay", cut, "--print"])
            let json = try Programs.run(Programs.pipescope, ["replay", cut, "--json"])
            let export = try Programs.run(Programs.pipescope, ["export", cut, "-o", cut + ".json"])
            let at = "cut at \(tenth)0 % (byte \(offset) of \(bytes.count), first snapshot to byte \(snapshotEnd))"
            if offset < snapshotEnd {
                inside += 1
                // Nothing to show: each says what is missing, and exits 1.
                XCTAssertEqual([print.status, json.status, export.status], [1, 1, 1], at)
                let said = "pipescope: \(cut) ends inside its first snapshot (the program's graph, which a recording "
                    + "starts with): "
                for (name, out) in [("print", print), ("json", json), ("export", export)] {
                    XCTAssertTrue(out.stderr.hasPrefix(said), "\(name), \(at): \(out.stderr)")
                    XCTAssertTrue(out.stderr.contains("No stage can be shown."), "\(name), \(at): \(out.stderr)")
                    XCTAssertEqual(out.stdout, "", "\(name), \(at)")
                }
                XCTAssertFalse(FileManager.default.fileExists(atPath: cut + ".json"), "\(at): no empty trace")
                continue
            }
            after += 1
            // What it holds is replayed: its stages, with the note of where it ends.
            XCTAssertEqual([print.status, json.status, export.status], [0, 0, 0], "\(at): \(print.stderr)")
            let note = "pipescope: \(cut): the recording ends after "
            XCTAssertTrue(print.stderr.hasPrefix(note), "\(at): \(print.stderr)")
            XCTAssertTrue(print.stderr.contains("or the file is a copy cut short"), "\(at): \(print.stderr)")
            XCTAssertEqual(json.stderr, print.stderr, at)
            XCTAssertFalse(print.stdout.contains(" 0 stages"), "\(at): \(print.stdout.prefix(200))")
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            XCTAssertGreaterThanOrEqual((document["nodes"] as? [Any])?.count ?? 0, 900, at)
            XCTAssertTrue(export.stderr.hasPrefix("pipescope: exported "), "\(at): \(export.stderr)")
            XCTAssertFalse(export.stderr.contains(" (0 stages"), "\(at): \(export.stderr)")
            XCTAssertTrue(export.stderr.contains(String(note.dropFirst("pipescope: ".count))), "\(at): \(export.stderr)")
            XCTAssertGreaterThan(size(cut + ".json"), 0, at)
        }
        XCTAssertGreaterThan(inside, 0, "some tenths cut the first snapshot")
        XCTAssertGreaterThan(after, 0, "some tenths keep it whole")

        // The inspector: a cut it cannot show says so at once, on the screen it was started
        // from, and exits 1; one it shows says where it ends on its own screen, while it runs.
        let session = try TerminalSession(width: 240, height: 40)
        defer { session.kill() }
        session.type("\(Programs.pipescope) replay \(directory!)/cut-90.pipescope")
        session.expect("REPLAY", "cut-90.pipescope: the recording ends after", timeout: 60)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.type("\(Programs.pipescope) replay \(directory!)/cut-10.pipescope")
        session.expect("cut-10.pipescope ends inside its first snapshot", "No stage can be shown.", "EXIT=1")
        session.expectUsableShell()
    }
}
