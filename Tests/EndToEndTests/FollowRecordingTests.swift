import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `replay --follow` on a recording its program is still writing, as `tail -f` follows a
/// log: the inspector shows what is appended after it opened and says when the writer
/// ended; `--print --follow` waits until the writer ends, then prints the whole of it.
/// Both writers are followed: a program recording itself (`PIPESCOPE_RECORD`) and
/// `pipescope record`.
final class FollowRecordingTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The values the example's subject delivered, in `replay FILE --json` (nil until the
    /// file holds the subject).
    private func recordedValues(_ file: String, follow: Bool = false) -> Int? {
        guard let out = try? Programs.run(Programs.pipescope, ["replay", file, "--json"] + (follow ? ["--follow"] : [])),
              out.status == 0,
              let document = (try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8))) as? [String: Any],
              let nodes = document["nodes"] as? [[String: Any]] else { return nil }
        return nodes.filter { $0["operator"] as? String == "PassthroughSubject" }.compactMap { $0["values"] as? Int }.max()
    }

    func testTheInspectorFollowsAProgramRecordingItselfAndSaysWhenItsWriterStops() throws {
        let file = directory + "/self.pipescope"
        let program = try ExampleProgram(socketPath: directory + "/self.sock", environment: ["PIPESCOPE_RECORD": file])
        defer { program.stop() }
        // The file holds the example's pipelines (a value sent every 50 ms, on and on).
        XCTAssertTrue(eventually(timeout: 60) { (self.recordedValues(file) ?? 0) > 0 }, "the recording has its pipelines")

        // Wide enough for the notice of how the writer stopped, a temporary directory's path and all.
        let session = try TerminalSession(width: 250, height: 40)
        defer { session.kill() }
        session.type("\(Programs.pipescope) replay \(file) --follow")
        session.expect("REPLAY", "following: being written", timeout: 60)
        var screen = session.showTree()
        screen = session.expect("the subject's values", timeout: 30) {
            TerminalSession.values(of: "PassthroughSubject", in: $0) != nil
        }
        let opened = try XCTUnwrap(TerminalSession.values(of: "PassthroughSubject", in: screen), screen)
        // Values the program sends after the inspector opened reach its screen, as they are written.
        session.expect("more values than when it opened (\(opened))", timeout: 60) {
            (TerminalSession.values(of: "PassthroughSubject", in: $0) ?? 0) >= opened + 10
                && $0.contains("following: being written")
        }

        // The writer dies without closing the file: said on screen, and following stops.
        kill(program.pid, SIGKILL)
        program.process.waitUntilExit()
        screen = session.expect("self.pipescope: its writer stopped after ", ", without closing it (the program was killed",
                                timeout: 30)
        XCTAssertFalse(screen.contains("following: being written"), screen)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testPrintFollowWaitsForPipescopeRecordToEndThenPrintsAllOfIt() throws {
        let program = try ExampleProgram(socketPath: directory + "/rec.sock", environment: ["EXAMPLE_RATE": "400"])
        defer { program.stop() }
        let file = directory + "/rec.pipescope"
        let recorder = try Programs.startRecording(program.socketPath, to: file)
        defer { if recorder.isRunning { recorder.terminate() } }
        XCTAssertTrue(eventually(timeout: 60) { (self.recordedValues(file) ?? 0) > 0 }, "the recording has its pipelines")

        // `--print --follow` waits while `record` writes, and says so on standard error.
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Programs.pipescope)
        follower.arguments = ["replay", file, "--print", "--follow"]
        let out = directory + "/follow.out", err = directory + "/follow.err"
        for path in [out, err] { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil)) }
        follower.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        follower.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try follower.run()
        let said = { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
        XCTAssertTrue(eventually(timeout: 30) { said().contains("waiting until its writer ends") }, said())
        XCTAssertEqual(said(), "pipescope: \(file) is being written: waiting until its writer ends (--follow), then "
            + "printing. Ctrl-C stops waiting.\n")
        XCTAssertTrue(follower.isRunning, "it waits while the writer writes")

        // The program ends; `record` closes the file (its end mark); the follower prints it all.
        program.stop()
        recorder.waitUntilExit()
        follower.waitUntilExit()
        XCTAssertEqual(follower.terminationStatus, 0, said())
        let followed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let whole = try Programs.run(Programs.pipescope, ["replay", file, "--print"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(followed, whole.stdout, "what it printed is the whole recording, as read once it was closed")
        XCTAssertTrue(followed.contains("PassthroughSubject"), followed)
    }

    // MARK: - A writer driven by hand: frames half-written when the inspector reads

    /// The frames a writer writes for a one-pipeline program: welcome, empty snapshot, a
    /// batch that makes `Map → Sink` with one value, and a second batch with two more.
    private func handFrames() -> [[UInt8]] {
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = ProtocolVersion.current
        welcome.welcome.processName = "handmade"
        welcome.welcome.pid = 7
        var stream = WireStreamWriter()
        var first = BatchBuilder()
        first.subscribe(1, op: "Map", subscriber: "Sink")
        first.value(1, "1")
        var second = BatchBuilder()
        second.value(1, "2")
        second.value(1, "3")
        return [welcome.framed()] + stream.frames(GraphSnapshot())
            + [stream.message(first.build(sequence: 1)).framed(), stream.message(second.build(sequence: 2)).framed()]
    }

    /// `path` opened as every writer opens it, holding its lock.
    private func openAsWriter(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return fd
    }

    private func write(_ fd: Int32, _ bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        XCTAssertEqual(array.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, array.count) }, array.count)
    }

    func testHalfWrittenFramesAreWaitedForAndAWriterThatDiesInOneIsSaidOnScreen() throws {
        let file = directory + "/hand.pipescope"
        let frames = handFrames()
        let (batch, next) = (frames[frames.count - 2], frames[frames.count - 1])
        let fd = try openAsWriter(file)
        write(fd, RecordingFormat.magic + frames.dropLast(2).joined() + batch.prefix(batch.count / 2))

        let session = try TerminalSession(width: 250, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) replay \(file) --follow")
        session.expect("REPLAY", "following: being written", timeout: 30)
        // The rest of the half-written batch: its pipeline appears; nothing was called damaged.
        write(fd, batch.dropFirst(batch.count / 2))
        var screen = session.expect("Map", "following: being written", timeout: 30)
        XCTAssertFalse(screen.contains("damaged"), screen)
        // Half of the next batch, then the writer dies (its lock goes with it).
        write(fd, next.prefix(next.count - 3))
        close(fd)
        screen = session.expect("hand.pipescope: its writer stopped after 2 events, the last at ",
                                "without closing it (the program was killed or crashed, or its disk filled), in the "
                                    + "middle of a batch (\(next.count - 3) bytes of it written).", timeout: 30)
        XCTAssertFalse(screen.contains("following: being written"), screen)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testAWriterThatDiesInsideItsFirstSnapshotLeavesNothingToShowSaidOnScreen() throws {
        let file = directory + "/young.pipescope"
        let frames = handFrames()
        let fd = try openAsWriter(file)
        write(fd, RecordingFormat.magic + frames[0] + frames[1].prefix(3))
        let session = try TerminalSession(width: 250, height: 30)
        defer { session.kill() }
        session.type("\(Programs.pipescope) replay \(file) --follow")
        session.expect("REPLAY", "following: being written", timeout: 30)
        close(fd)
        session.expect("young.pipescope ends inside its first snapshot", "No stage can be shown.", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }
}
