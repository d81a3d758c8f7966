import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// A program with `PIPESCOPE_FLIGHT` keeps its recent events within the budget, however
/// long it runs, and `pipescope dump` gives them back as one recording, exactly the tail
/// of what the program sent, also after the program was killed.
final class FlightDumpCommandTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Bytes of every file in `path`.
    /// What the files in `path` take, read as one moment: the listing and each file's size
    /// are read twice in a row and must agree, else read again. One pass alone can add a
    /// segment's size from before the writer deleted it to the next one's from after it
    /// grew into the room (the writer deletes first, but the pass reads in its own order).
    /// nil when the directory never held still for 50 tries.
    private func bytes(in path: String) -> Int? {
        func pass() -> [String: Int] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            var sizes: [String: Int] = [:]
            for name in names {
                var info = stat()
                sizes[name] = stat(path + "/" + name, &info) == 0 ? Int(info.st_size) : -1
            }
            return sizes
        }
        for _ in 0..<50 {
            let first = pass()
            if pass() == first { return first.values.reduce(0) { $0 + max(0, $1) } }
        }
        return nil
    }

    private func contents(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The values the example's subject delivered in a recording, in order, and how many
    /// snapshots it has.
    private func subjectValues(_ path: String) throws -> (values: [Int], snapshots: Int) {
        var reader = try RecordingReader(path: path)
        var stream = WireStreamReader()
        var subjects = Set<NodeID>()
        var values: [Int] = []
        var snapshots = 0
        while let message = try reader.next() {
            switch message.body {
            case .snapshot(let wire)?:
                snapshots += 1
                let snapshot = try stream.snapshot(wire)
                for node in snapshot.nodes where node.operatorName == "PassthroughSubject" { subjects.insert(node.id) }
            case .packed(let packed)?:
                let batch = try stream.batch(packed)
                for node in batch.nodes where node.operatorName == "PassthroughSubject" { subjects.insert(node.id) }
                for event in batch.events where event.kind == .value && subjects.contains(event.node) {
                    values.append(Int(event.text) ?? -1)
                }
            default:
                break
            }
        }
        return (values, snapshots)
    }

    func testTheFlightRecorderStaysWithinItsBudgetAndItsDumpReplaysTheLastEventsExactly() throws {
        let flight = directory + "/flight"
        let budget = 64 << 10
        let sent = 12_000  // 2,000 a second: 6 s, some 20 budgets of events
        let program = try ExampleProgram(socketPath: directory + "/p.sock", environment: [
            "PIPESCOPE_FLIGHT": flight, "PIPESCOPE_FLIGHT_BUDGET": "64KB", "PIPESCOPE_FLIGHT_WINDOW": "2s",
            "EXAMPLE_RATE": "2000", "EXAMPLE_SEND_LIMIT": "\(sent)",
        ], standardError: directory + "/stderr")
        defer { program.stop() }
        let dump = directory + "/dump.pipescope"
        var largest = 0
        var firstKept = 0
        var last: [Int] = []
        var lastDump = Date()
        // Polled every 2 ms, never above the budget, until a dump ends at the last value sent.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let now = bytes(in: flight) {
                largest = max(largest, now)
                XCTAssertLessThanOrEqual(now, budget, "the flight recorder's directory grew past its budget")
            }
            firstKept = max(firstKept, (try? FlightSegments.list(flight))?.first?.number ?? 0)
            if Date().timeIntervalSince(lastDump) > 0.5 {
                lastDump = Date()
                let out = try Programs.run(Programs.pipescope, ["dump", flight, "-o", dump])
                XCTAssertEqual(out.status, 0, out.stderr)
                last = try subjectValues(dump).values
                if last.last == sent { break }
            }
            usleep(2_000)
        }
        XCTAssertEqual(last.last, sent, "a dump ends at the last value sent")
        XCTAssertGreaterThan(largest, budget / 2, "the budget was used")
        XCTAssertGreaterThan(firstKept, 1, "old segments were deleted")
        XCTAssertEqual(contents(directory + "/stderr"), "", "nothing went wrong")

        // The program is killed: its segments stay, and a dump of them (found through its
        // socket, as `pipescope dump <pid>` finds them) is the tail of what it sent.
        kill(program.pid, SIGKILL)
        program.process.waitUntilExit()
        let crashed = directory + "/crashed.pipescope"
        let out = try Programs.run(Programs.pipescope, ["dump", directory + "/p.sock", "-o", crashed])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stderr.hasPrefix("pipescope: dumped "), out.stderr)
        XCTAssertTrue(out.stderr.contains("to \(crashed)."), out.stderr)
        XCTAssertLessThanOrEqual(try XCTUnwrap(bytes(in: flight), "the program is dead: its directory holds still"), budget)
        let (values, snapshots) = try subjectValues(crashed)
        XCTAssertEqual(values.last, sent)
        XCTAssertGreaterThan(values.first ?? 0, 1, "the oldest events were deleted")
        XCTAssertEqual(values, Array((sent - values.count + 1)..<(sent + 1)), "a contiguous run of the last values sent")
        XCTAssertEqual(snapshots, 1, "the segments follow each other: the dump needs only the oldest one's snapshot")

        // It is a recording like any other: replay shows the subject's whole count (the
        // snapshot's, then the events), and export reads it.
        let replay = try Programs.run(Programs.pipescope, ["replay", crashed, "--json"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(replay.stdout.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        let counts = nodes.filter { $0["operator"] as? String == "PassthroughSubject" }.compactMap { $0["values"] as? Int }
        XCTAssertEqual(counts.max(), sent)
        let export = try Programs.run(Programs.pipescope, ["export", crashed, "-o", directory + "/trace.json"])
        XCTAssertEqual(export.status, 0, export.stderr)
    }

    func testBadSettingsAndAnUnwritableDirectoryAreSaidAndTheProgramRunsOn() throws {
        // An unwritable directory: no flight recorder, the program served as ever.
        let program = try ExampleProgram(socketPath: directory + "/p.sock", environment: [
            "PIPESCOPE_FLIGHT": "/proc/pipescope-flight", "PIPESCOPE_FLIGHT_BUDGET": "plenty",
        ], standardError: directory + "/stderr")
        defer { program.stop() }
        let snapshot = try Programs.run(Programs.pipescope, ["snapshot", directory + "/p.sock"])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        XCTAssertTrue(snapshot.stdout.contains("PassthroughSubject"), snapshot.stdout)
        let said = contents(directory + "/stderr")
        XCTAssertTrue(said.contains("pipescope: PIPESCOPE_FLIGHT_BUDGET=plenty is not a size"), said)
        XCTAssertTrue(said.contains("pipescope: no flight recorder in /proc/pipescope-flight: "), said)
        XCTAssertTrue(said.contains("The program runs on without it."), said)
        // Nothing was announced: a dump through the program's socket says why not.
        let out = try Programs.run(Programs.pipescope, ["dump", directory + "/p.sock", "-o", directory + "/d.pipescope"])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("has no flight recorder that Pipescope knows of"), out.stderr)
    }

    func testADumpOfAnEmptyOrMissingDirectoryIsAClearError() throws {
        let empty = directory + "/empty"
        mkdir(empty, 0o700)
        var out = try Programs.run(Programs.pipescope, ["dump", empty, "-o", directory + "/d.pipescope"])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: \(empty) holds no flight recorder segments (flight-*.pipescope): "
                       + "nothing was recorded there yet; is PIPESCOPE_FLIGHT set to it?\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/d.pipescope"))

        out = try Programs.run(Programs.pipescope, ["dump", directory + "/missing", "-o", directory + "/d.pipescope"])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.hasPrefix("pipescope: \(directory!)/missing is not a directory, a pid or a socket"), out.stderr)

        out = try Programs.run(Programs.pipescope, ["dump", "tcp://127.0.0.1:9", "-o", directory + "/d.pipescope"])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("keeps its segments on the program's machine"), out.stderr)

        // A file that is neither a socket nor a directory says what it is.
        out = try Programs.run(Programs.pipescope, ["dump", "/etc/passwd", "-o", directory + "/d.pipescope"])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: /etc/passwd is a regular file, not a program's socket or a flight recorder's "
                       + "directory; give the program's pid, its socket path, or the directory of its PIPESCOPE_FLIGHT\n")

        // --pid of a run the directory does not hold: the pids it does hold.
        let runs = directory + "/runs"
        mkdir(runs, 0o700)
        for name in ["flight-20261126T170700Z-4242-00000001.pipescope", "flight-20261126T180700Z-5151-00000001.pipescope"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: runs + "/" + name, contents: Data()))
        }
        out = try Programs.run(Programs.pipescope, ["dump", runs, "--pid", "12345", "-o", directory + "/d.pipescope"])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: \(runs) holds no flight recorder segments of pid 12345; it holds runs of "
                       + "pids 4242, 5151: give one of them with --pid, or leave --pid out for the newest run\n")
    }

    func testAttachDumpOnRefusesWhatItCannotDo() throws {
        var out = try Programs.run(Programs.pipescope, ["attach", "1", "--dump-on", "stalled,sometimes"])
        XCTAssertNotEqual(out.status, 0)
        XCTAssertTrue(out.stderr.contains("--dump-on: unknown trigger 'sometimes'; choose from "), out.stderr)
        // A program without a flight recorder: said before attaching.
        let program = try ExampleProgram(socketPath: directory + "/p.sock")
        defer { program.stop() }
        out = try Programs.run(Programs.pipescope, ["attach", directory + "/p.sock", "--dump-on", "stalled"])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.hasPrefix("pipescope: --dump-on: the program of \(directory!)/p.sock has no flight recorder"),
                      out.stderr)
    }

    /// `attach --dump-on owner-leak,cancel` on the demo: its task that outlives its owner
    /// (about 5 s in) dumps the flight recorder, and so does a cancel from the inspector
    /// (held until 10 s after the first dump); the status line says where each went.
    func testAttachDumpOnALintAndOnACancelWritesDumpsAndSaysWhere() throws {
        let socket = directory + "/demo.sock"
        let dumps = directory + "/dumps"
        mkdir(dumps, 0o700)
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: Programs.pipescope)
        demo.arguments = ["demo", "--headless"]
        demo.environment = ProcessInfo.processInfo.environment.merging([
            "PIPESCOPE_SOCKET": socket, "PIPESCOPE_FLIGHT": directory + "/flight",
        ]) { _, new in new }
        demo.standardOutput = FileHandle.nullDevice
        demo.standardError = FileHandle.nullDevice
        try demo.run()
        defer { demo.terminate(); demo.waitUntilExit() }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(20_000) }

        let session = try TerminalSession(width: 250, height: 40)
        defer { session.kill() }
        session.type("\(Programs.pipescope) attach \(socket) --dump-on owner-leak,cancel --dump-dir \(dumps)")
        let screen = session.expect("owner-leak on #", ": dumped the flight recorder to \(dumps)/pipescope-dump-", timeout: 60)
        let first = try XCTUnwrap(screen.firstMatch(of: #/dumped the flight recorder to (\S+\.pipescope)/#).map { String($0.1) })
        XCTAssertTrue(FileManager.default.fileExists(atPath: first), first)
        let replay = try Programs.run(Programs.pipescope, ["replay", first, "--json"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertTrue(replay.stdout.contains("owner-leak"), "the dump holds what the lint saw")

        session.showTree()
        session.tmux.sendKeys("j")
        session.expect("#2 → Filter")
        session.tmux.sendKeys("c")
        session.expect("Cancel #2 Map?")
        session.tmux.sendKeys("y")
        session.expect("you cancelled #2: dumped the flight recorder to \(dumps)/pipescope-dump-", timeout: 30)
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        // The same leak, made again every 12 s by the demo, is one warning: one dump for
        // it, one for the cancel.
        let files = try FileManager.default.contentsOfDirectory(atPath: dumps).filter { $0.hasSuffix(".pipescope") }
        XCTAssertEqual(files.count, 2, "\(files)")
    }
}
