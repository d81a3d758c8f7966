import Foundation
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Recording a separate program and replaying it, including a program that dies.
final class RecordReplayTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func json(_ arguments: [String]) throws -> [String: Any] {
        let out = try Programs.run(Programs.pipescope, arguments)
        XCTAssertEqual(out.status, 0, out.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
    }

    private func nodes(_ document: [String: Any]) -> [[String: Any]] {
        document["nodes"] as? [[String: Any]] ?? []
    }

    func testRecordKillReplayMatchesTheLastLiveSnapshot() throws {
        let program = try ExampleProgram(socketPath: directory + "/rec.sock", environment: ["EXAMPLE_SEND_LIMIT": "20"])
        let file = directory + "/session.pipescope"
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: Programs.pipescope)
        recorder.arguments = ["record", program.socketPath, "-o", file]
        let said = directory + "/record.err"
        XCTAssertTrue(FileManager.default.createFile(atPath: said, contents: nil))
        recorder.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: said))
        try recorder.run()
        // What `record` said, for a failure's message.
        let recorderSaid = { (try? String(contentsOfFile: said, encoding: .utf8)) ?? "" }

        // Wait until the program has sent all it will send, then take the live picture.
        var live: [String: Any] = [:]
        let settled = eventually(timeout: 60) {
            live = (try? self.json(["snapshot", program.socketPath, "--json"])) ?? [:]
            // Locations follow their stages (symbolized off the program's threads; slowly
            // under a sanitizer on a busy machine): the picture is final once they came.
            let nodes = self.nodes(live)
            return nodes.contains { $0["operator"] as? String == "PassthroughSubject" && $0["values"] as? Int == 20 }
                && nodes.allSatisfy { $0["location"] is [String: Any] }
        }
        XCTAssertTrue(settled, "the example sent its 20 values and every stage has its location:\n\(live)")
        // The recorder has it all once its file, read so far, replays to the same picture.
        XCTAssertTrue(eventually(timeout: 30) {
            guard let out = try? Programs.run(Programs.pipescope, ["replay", file, "--json"]), out.status == 0,
                  let sofar = (try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8))) as? [String: Any]
            else { return false }
            return NSDictionary(dictionary: ["nodes": self.nodes(sofar)]) == NSDictionary(dictionary: ["nodes": self.nodes(live)])
        }, "the recording caught up with the live picture; record said: \(recorderSaid())")
        kill(program.pid, SIGKILL)
        recorder.waitUntilExit()
        XCTAssertEqual(recorder.terminationStatus, 0, "record ends cleanly when the program dies: \(recorderSaid())")

        let replayed = try json(["replay", file, "--json"])
        XCTAssertEqual(NSDictionary(dictionary: ["nodes": nodes(replayed)]),
                       NSDictionary(dictionary: ["nodes": nodes(live)]),
                       "the replayed final tree is the last live snapshot; record said: \(recorderSaid())")
    }

    func testAProgramRecordsItselfWithPIPESCOPE_RECORD() throws {
        let file = directory + "/self.pipescope"
        let program = try ExampleProgram(socketPath: directory + "/self.sock",
                                         environment: ["PIPESCOPE_RECORD": file, "EXAMPLE_SEND_LIMIT": "5"])
        // Until the recording holds all five values, however long the program takes.
        XCTAssertTrue(eventually(timeout: 30) {
            guard FileManager.default.fileExists(atPath: file),
                  let out = try? Programs.run(Programs.pipescope, ["replay", file, "--print"]) else { return false }
            return out.stdout.contains("Filter -> Sink  active  demand unlimited  values 2")
        }, "the program recorded its five values")
        kill(program.pid, SIGKILL)  // a crash: no chance to close the file
        program.stop()
        let out = try Programs.run(Programs.pipescope, ["replay", file, "--print"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stdout.contains("pipescope-example (pid \(program.pid), recorded)"), out.stdout)
        XCTAssertTrue(out.stdout.contains("Filter -> Sink  active  demand unlimited  values 2"), out.stdout)
        XCTAssertTrue(out.stdout.contains("Sequence -> Sink  finished"), out.stdout)
    }

    func testTheShippedDemoRecordingReplays() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/demo.pipescope").path
        let document = try json(["replay", file, "--json"])
        let operators = Set(nodes(document).compactMap { $0["operator"] as? String })
        XCTAssertTrue(operators.isSuperset(of: ["Filter", "Map", "TimerPublisher", "FlatMap", "Future", "Scan", "Debounce", "TryMap"]),
                      "\(operators)")
        XCTAssertTrue(nodes(document).contains { $0["status"] as? String == "failed" })
        XCTAssertTrue(nodes(document).contains { $0["status"] as? String == "cancelled" })
        // The lifecycle stories, each with its lint on the stage named for it.
        let lints = (document["lints"] as? [[String: Any]] ?? []).compactMap { lint -> String? in
            guard let kind = lint["lint"] as? String, let id = lint["node"] as? Int,
                  let node = nodes(document).first(where: { $0["id"] as? Int == id }) else { return nil }
            return "\(kind) on \(node["operator"] as? String ?? "?")"
        }
        for expected in ["unretained-cancellable on story: forgotten request",
                         "contract-violation on story: cache lookup promised immediate",
                         // On the publisher that sends past demand, not the labelled stage that passes it on.
                         "demand-violation on IgnoresDemand",
                         "stalled on story: publisher ignoring demand",
                         "owner-leak on feed refresh (not tied)"] {
            XCTAssertTrue(lints.contains(expected), "\(expected) in \(lints)")
        }
        XCTAssertFalse(lints.contains { $0.hasSuffix("feed refresh (tied)") }, "the tied task ended with its owner")
        let owned = nodes(document).filter { ($0["owner"] as? String)?.contains("ProfileScreen") == true }
        XCTAssertEqual(owned.map { $0["cause"] as? String }, ["owner", "owner"], "a released owner cancels its pipelines")

        let session = try TerminalSession(width: 100, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) replay \(file)")
        session.expect("REPLAY", "demo.pipescope", "TimerPublisher")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    /// A frame that is not the protocol ends the recording with exit status 1 and says
    /// what was wrong; the file keeps what came before it, and replays.
    func testAnUnreadableFrameEndsTheRecordingWithAnError() throws {
        let probe = try FakeProbe(path: directory + "/fake.sock", frames: [
            FakeProbe.welcome(name: "garbler", pid: 4242), FakeProbe.emptySnapshot,
            Framing.frame([0xFF, 0xFF, 0xFF, 0xFF]),
        ])
        defer { probe.stop() }
        let file = directory + "/garbled.pipescope"
        // The fake probe keeps the connection open: only the bad frame can end it early.
        let out = try Programs.run(Programs.pipescope, ["record", probe.path, "-o", file, "--seconds", "20"])
        XCTAssertEqual(out.status, 1, out.stderr)
        XCTAssertTrue(out.stderr.hasPrefix("pipescope: recorded 0 events from garbler (pid 4242) to \(file) "
            + "before the connection failed (the recording holds everything before it): malformed message"), out.stderr)
        let replayed = try json(["replay", file, "--json"])
        XCTAssertEqual(nodes(replayed).count, 0, "the empty graph before the bad frame")
    }

    func testReplayOfSomethingElseSaysWhatItIs() throws {
        let file = directory + "/notes.txt"
        try "hello".write(toFile: file, atomically: true, encoding: .utf8)
        let out = try Programs.run(Programs.pipescope, ["replay", file])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("not a Pipescope recording"), out.stderr)
        let missing = try Programs.run(Programs.pipescope, ["replay", directory + "/nope.pipescope", "--json"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("cannot read"), missing.stderr)
    }
}
