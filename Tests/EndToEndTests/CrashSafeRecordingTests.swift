import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A program that records itself (`PIPESCOPE_RECORD`) and is killed at any moment leaves
/// a file that replays, up to its last complete batch, and says where and why it ends; a
/// disk that fails or a path that cannot be written stops the recording, says so, and
/// never stops the program.
final class CrashSafeRecordingTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    private func contents(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// What a recording of the example holds: the values its subject delivered, in order,
    /// and how the file ends.
    private func subjectValues(_ path: String) throws -> (values: [String], endReason: String?, cut: Int) {
        var reader = try RecordingReader(path: path)
        var stream = WireStreamReader()
        var subjects = Set<NodeID>()
        var values: [String] = []
        while let message = try reader.next() {
            switch message.body {
            case .snapshot(let snapshot)?:
                _ = try stream.snapshot(snapshot)
            case .packed(let packed)?:
                let batch = try stream.batch(packed)
                for node in batch.nodes where node.operatorName == "PassthroughSubject" { subjects.insert(node.id) }
                for event in batch.events where event.kind == .value && subjects.contains(event.node) {
                    values.append(event.text)
                }
            default:
                break
            }
        }
        return (values, reader.endReason, reader.truncatedBytes)
    }

    /// The values the example's subject has delivered, seen live by `pipescope snapshot`.
    private func liveValues(_ socket: String) -> Int {
        guard let out = try? Programs.run(Programs.pipescope, ["snapshot", socket, "--json"]), out.status == 0,
              let document = (try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8))) as? [String: Any],
              let nodes = document["nodes"] as? [[String: Any]] else { return -1 }
        return nodes.filter { $0["operator"] as? String == "PassthroughSubject" }.compactMap { $0["values"] as? Int }.max() ?? 0
    }

    func testKillingARecordingProgramAtTwentyRandomMomentsLeavesFilesThatReplayUpToTheCut() throws {
        for round in 1...20 {
            let file = directory + "/killed-\(round).pipescope"
            // A random moment: once the file has grown past a random size, wherever the
            // writer is then in its stream of batches (the magic line is written first).
            let moment = RecordingFormat.magic.count + Int.random(in: 0...30_000)
            let program = try ExampleProgram(socketPath: directory + "/killed-\(round).sock",
                                             environment: ["PIPESCOPE_RECORD": file, "EXAMPLE_RATE": "2000"])
            let grew = eventually(timeout: 60) { self.size(file) >= moment }
            kill(program.pid, SIGKILL)
            program.process.waitUntilExit()
            XCTAssertTrue(grew, "round \(round): the recording reached \(moment) bytes (it has \(size(file)))")

            let replay = try Programs.run(Programs.pipescope, ["replay", file, "--print"])
            let read = try subjectValues(file)
            XCTAssertNil(read.endReason, "killed: no end mark")
            let note = replay.stderr.components(separatedBy: "\n").first ?? ""
            if read.values.isEmpty, !note.contains(": the recording ends after ") {
                // The moment fell before the first batch was whole (a busy machine kills
                // the program while it has written only its header and first snapshot, or
                // part of them): replay says there is no stage to show, and fails.
                XCTAssertEqual(replay.status, 1, "round \(round): \(replay.stderr)")
                XCTAssertTrue(note.contains(" holds no stage: ") || note.contains(" ends inside its first snapshot "),
                              "round \(round), killed at \(size(file)) bytes: \(note)")
                continue
            }
            XCTAssertEqual(replay.status, 0, "round \(round): \(replay.stderr)")
            XCTAssertTrue(replay.stdout.hasPrefix("pipescope-example (pid \(program.pid), recorded)"), replay.stdout)
            // Replay names the cut: after how many events, when, and why.
            XCTAssertTrue(note.hasPrefix("pipescope: \(file): the recording ends after "), "round \(round): \(note)")
            if read.cut > 0 {
                XCTAssertTrue(note.contains(" an incomplete batch (its program stopped while writing it, or the file is a "
                                            + "copy cut short). Replaying those events;"), note)
            } else {
                XCTAssertTrue(note.contains("its program stopped without closing it (killed or crashed, or its disk filled), "
                                            + "or the file is a copy cut short. Replaying those events;"), note)
            }
            // Its values are a prefix of what was sent: 1, 2, 3, … with none missing.
            XCTAssertEqual(read.values, (0..<read.values.count).map { String($0 + 1) }, "round \(round)")
        }
    }

    /// `kill` (SIGTERM), as a service manager ends a program, is an ordinary end: the
    /// recording gets its last flush and its end mark, the socket goes, and the program
    /// still dies by SIGTERM.
    func testAProgramEndedBySIGTERMClosesItsRecording() throws {
        let file = directory + "/terminated.pipescope"
        let program = try ExampleProgram(socketPath: directory + "/terminated.sock",
                                         environment: ["PIPESCOPE_RECORD": file, "EXAMPLE_RATE": "2000"])
        let seen = eventually(timeout: 60) { self.liveValues(program.socketPath) >= 50 }
        XCTAssertTrue(seen, "the example sent 50 values")
        let sentBefore = liveValues(program.socketPath)
        kill(program.pid, SIGTERM)
        program.process.waitUntilExit()
        XCTAssertEqual(program.process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(program.process.terminationStatus, SIGTERM, "it still ends as SIGTERM ends it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: program.socketPath), "the socket is removed")
        let read = try subjectValues(file)
        XCTAssertEqual(read.endReason, "the program was ended by SIGTERM")
        XCTAssertEqual(read.cut, 0)
        XCTAssertGreaterThanOrEqual(read.values.count, sentBefore, "the last flush reached the file")
        XCTAssertEqual(read.values, (0..<read.values.count).map { String($0 + 1) })
        let replay = try Programs.run(Programs.pipescope, ["replay", file, "--print"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stderr, "", "a closed recording: no note of a cut")
    }

    func testARecordingToAFullDiskStopsWithAMessageAndTheProgramRunsOn() throws {
        let said = directory + "/stderr"
        let program = try ExampleProgram(socketPath: directory + "/full.sock", environment: ["PIPESCOPE_RECORD": "/dev/full"],
                                         standardError: said)
        defer { program.stop() }
        let expected = "pipescope: the recording to /dev/full stopped after 0 events: the disk is full (no space left on "
            + "device). The program runs on, unrecorded; the file replays up to there.\n"
        XCTAssertTrue(eventually(timeout: 30) { self.contents(said) == expected }, "stderr: \(contents(said))")
        // The program runs on: its subject keeps delivering values, seen live.
        let before = liveValues(program.socketPath)
        XCTAssertGreaterThanOrEqual(before, 0)
        XCTAssertTrue(eventually(timeout: 30) { self.liveValues(program.socketPath) >= before + 5 }, "values kept coming")
        XCTAssertTrue(program.process.isRunning)
        XCTAssertEqual(contents(said), expected, "said once")
    }

    /// Run as root (as CI is), permissions do not stop a write: /sys refuses new files to
    /// everyone, and a missing directory is missing for everyone.
    func testAnUnwritableRecordingPathIsSaidAndTheProgramIsServedAnyway() throws {
        let cases = [
            ("/sys/pipescope-test.pipescope",
             "it is not writable (permission denied); check the permissions of the file and its directory"),
            (directory + "/missing/r.pipescope",
             "the directory \(directory!)/missing does not exist; create it, or choose another path"),
            (directory!, "it is a directory; give the path of a file to write, for example \(directory!)/session.pipescope"),
        ]
        for (index, (path, reason)) in cases.enumerated() {
            let said = directory + "/stderr-\(index)"
            let program = try ExampleProgram(socketPath: directory + "/ro-\(index).sock",
                                             environment: ["PIPESCOPE_RECORD": path], standardError: said)
            defer { program.stop() }
            let expected = "pipescope: not recording (PIPESCOPE_RECORD): cannot write a recording at \(path): \(reason). "
                + "The program runs on, unrecorded.\n"
            XCTAssertEqual(contents(said), expected, "said before the socket was served")
            XCTAssertTrue(eventually(timeout: 30) { self.liveValues(program.socketPath) >= 3 }, "\(path): the program runs on, served")
            XCTAssertTrue(program.process.isRunning)
        }
    }

    func testRecordToAFullDiskOrAnUnwritablePathSaysWhatHappened() throws {
        let program = try ExampleProgram(socketPath: directory + "/target.sock")
        defer { program.stop() }
        let full = try Programs.run(Programs.pipescope, ["record", program.socketPath, "-o", "/dev/full", "--seconds", "60"])
        XCTAssertEqual(full.status, 1)
        XCTAssertEqual(full.stderr, "pipescope: recorded 0 events from pipescope-example (pid \(program.pid)) to /dev/full "
            + "before the recording stopped: the disk is full (no space left on device). "
            + "The file replays up to its last complete batch.\n")
        let unwritable = try Programs.run(Programs.pipescope, ["record", program.socketPath, "-o", "/sys/r.pipescope"])
        XCTAssertEqual(unwritable.status, 1)
        XCTAssertEqual(unwritable.stderr, "pipescope: cannot write a recording at /sys/r.pipescope: it is not writable "
            + "(permission denied); check the permissions of the file and its directory\n")
        XCTAssertTrue(program.process.isRunning, "the program is not touched")
    }

    func testAProgramThatExitsEndsItsRecordingWithTheEndMarkAndEveryValue() throws {
        let file = directory + "/exited.pipescope"
        let status = try Programs.runExampleToExit(environment: [
            "PIPESCOPE_SOCKET": directory + "/exited.sock", "PIPESCOPE_RECORD": file,
            "EXAMPLE_SEND_LIMIT": "7", "EXAMPLE_RATE": "10000", "EXAMPLE_EXIT": "1",
        ])
        XCTAssertEqual(status, 0, "the example exits by itself after its 7 values")
        let read = try subjectValues(file)
        XCTAssertEqual(read.endReason, "the program exited")
        XCTAssertEqual(read.values, ["1", "2", "3", "4", "5", "6", "7"], "the last flush reached the file before the end mark")
        let replay = try Programs.run(Programs.pipescope, ["replay", file, "--print"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stderr, "", "a closed recording needs no note")
        // Where each pipeline was made reached the file too: the last flush waited for the
        // symbol thread (a run this short ends before it would have said otherwise).
        let json = try Programs.run(Programs.pipescope, ["replay", file, "--json"])
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let roots = try XCTUnwrap(document["nodes"] as? [[String: Any]]).filter { $0["parent"] is NSNull }
        XCTAssertFalse(roots.isEmpty)
        for root in roots {
            let location = root["location"] as? [String: Any]
            XCTAssertNotNil(location?["line"] as? Int, "#\(root["id"] ?? "?") has its location: \(root)")
        }
    }

    func testRecordEndsItsFileWithTheEndMark() throws {
        let program = try ExampleProgram(socketPath: directory + "/rec.sock", environment: ["EXAMPLE_SEND_LIMIT": "5"])
        defer { program.stop() }
        let file = directory + "/recorded.pipescope"
        let out = try Programs.run(Programs.pipescope, ["record", program.socketPath, "-o", file, "--seconds", "1"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(try subjectValues(file).endReason, "pipescope record recorded in the 1 s of --seconds")
        let replay = try Programs.run(Programs.pipescope, ["replay", file, "--print"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stderr, "", "a closed recording needs no note")
    }
}
