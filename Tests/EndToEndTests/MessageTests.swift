import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// What a newcomer reads when something is not right (issue #24, "Messages"): the exact
/// text on standard error and the exit status, from the built `pipescope`.
final class MessageTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Programs.Output {
        try Programs.run(Programs.pipescope, arguments, environment: environment)
    }

    /// The error's first line, and that it is the only `pipescope: ` prefix.
    private func firstLine(_ out: Programs.Output, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(out.stderr.components(separatedBy: "pipescope: ").count, 2, "one prefix: \(out.stderr)", file: file, line: line)
        XCTAssertTrue(out.stdout.isEmpty, out.stdout, file: file, line: line)
        return String(out.stderr.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }

    // MARK: - 1. pipescope itself

    func testVersionIsTheWireProtocolTheWelcomeReports() throws {
        let out = try run(["--version"])
        XCTAssertEqual(out.status, 0)
        XCTAssertEqual(out.stdout, "pipescope \(ReleaseVersion.current), wire protocol \(ProtocolVersion.current) "
                       + "(the version a program's Pipescope must speak)\n")
        XCTAssertEqual(ReleaseVersion.current.split(separator: ".").compactMap { Int($0) }.count, 3, "a semantic version")
    }

    func testAnUnknownOptionIsAboutPipescopeNotTheDemo() throws {
        let out = try run(["--bogus"])
        XCTAssertEqual(out.status, 64)
        XCTAssertEqual(out.stderr, """
            pipescope: unknown option '--bogus'
            Usage: pipescope <subcommand>
              See 'pipescope --help' for more information.

            """)
    }

    // MARK: - 2. connecting

    func testARefusedTCPAddressIsOnePlainSentence() throws {
        let port = freeTCPPort()
        let out = try run(["attach", "tcp://127.0.0.1:\(port)"])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: connection refused at 127.0.0.1:\(port) — is the program running, "
            + "and listening there (PIPESCOPE_LISTEN=127.0.0.1:\(port) in its environment)?\n")
    }

    func testAnUnknownHostIsOnePlainSentence() throws {
        let out = try run(["snapshot", "tcp://no-such-host.invalid:7070"])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: cannot find the host \"no-such-host.invalid\" (the name does not resolve) "
            + "— check its spelling, or give an IP address.\n")
    }

    // MARK: - 3. targets and files that are something else

    func testATargetThatIsAFileOrADirectorySaysWhatItIs() throws {
        let file = directory + "/notes.txt"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: file))
        let recording = directory + "/session.pipescope"
        try Data(RecordingFormat.magic).write(to: URL(fileURLWithPath: recording))
        let advice = "name or socket path (`pipescope list` shows them), or tcp://host:port."
        let cases: [([String], String)] = [
            (["attach", file], "pipescope: \(file) is a regular file, not a program's socket. Give `pipescope attach` the program's pid, \(advice)"),
            (["snapshot", directory], "pipescope: \(directory!) is a directory, not a program's socket. Give `pipescope snapshot` the program's pid, \(advice)"),
            (["explain", directory], "pipescope: \(directory!) is a directory, not a program's socket. Give `pipescope explain` the program's pid, \(advice)"),
            (["record", file, "-o", directory + "/out.pipescope"],
             "pipescope: \(file) is a regular file, not a program's socket. Give `pipescope record` the program's pid, \(advice)"),
            (["snapshot", recording],
             "pipescope: \(recording) is a Pipescope recording, not a program's socket: open it with `pipescope replay \(recording)`."),
        ]
        for (arguments, expected) in cases {
            let out = try run(arguments)
            XCTAssertEqual(out.status, 1, "\(arguments)")
            XCTAssertEqual(out.stderr, expected + "\n", "\(arguments)")
        }
    }

    func testAMissingProbeNamesTheCommandThatWasRun() throws {
        let out = try run(["snapshot", directory + "/nobody.sock"])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: no Pipescope probe at \(directory!)/nobody.sock — is the program running and "
            + "did it call Pipescope.start()? Give `pipescope snapshot` the program's pid, name or socket path "
            + "(`pipescope list` shows them), or tcp://host:port.\n")
    }

    /// A target that cannot be a pid, or a name no running program has, says so (the
    /// parser took "-5" for an option and said the target was missing).
    func testATargetThatIsNoPidOrNoRunningProgramSaysSo() throws {
        let advice = "name or socket path (`pipescope list` shows them), or tcp://host:port."
        let environment = ["XDG_RUNTIME_DIR": directory!]
        let cases: [([String], String)] = [
            (["snapshot", "-5"], "pipescope: -5 is not a pid (a pid is a number from 1 up). Give the program's pid, \(advice)"),
            (["snapshot", "0"], "pipescope: 0 is not a pid (a pid is a number from 1 up). Give `pipescope snapshot` the program's pid, \(advice)"),
            (["explain", "-1"], "pipescope: -1 is not a pid (a pid is a number from 1 up). Give the program's pid, \(advice)"),
            (["snapshot", "no-such-app"], "pipescope: no running program named no-such-app has Pipescope (none is running). "
                + "Give `pipescope snapshot` the program's pid, \(advice)"),
            (["attach", "--wait", "999999"], "pipescope: --wait waits for a program by its name, and no program with pid "
                + "999999 is running (a program's next run gets a new pid). Give its name: pipescope attach --wait NAME "
                + "(`pipescope list` shows the names of the running ones)."),
        ]
        for (arguments, expected) in cases {
            let out = try Programs.run(Programs.pipescope, arguments, environment: environment)
            XCTAssertNotEqual(out.status, 0, "\(arguments)")
            XCTAssertEqual(out.stderr, expected + "\n", "\(arguments)")
        }
    }

    func testARecordingThatIsADirectorySaysSo() throws {
        let advice = "Give the path of a file made by `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE."
        for arguments in [["replay", directory!], ["replay", directory!, "--json"], ["export", directory!, "-o", directory + "/x.json"]] {
            let out = try run(arguments)
            XCTAssertEqual(out.status, 1, "\(arguments)")
            XCTAssertEqual(out.stderr, "pipescope: cannot read \(directory!): it is a directory. \(advice)\n", "\(arguments)")
        }
    }

    // MARK: - 4. numbers

    func testNegativeNumbersAreRefusedWithAReason() throws {
        let cases: [([String], String)] = [
            (["record", "1", "-o", directory + "/x.pipescope", "--seconds", "-1"],
             "pipescope: --seconds must be a positive number of seconds (got -1); for example --seconds 10, "
                + "or leave it out to record until the program exits or Ctrl-C"),
            (["record", "1", "-o", directory + "/x.pipescope", "--seconds", "0"],
             "pipescope: --seconds must be a positive number of seconds (got 0); for example --seconds 10, "
                + "or leave it out to record until the program exits or Ctrl-C"),
            (["snapshot", "1", "--stall-after", "-1"],
             "pipescope: --stall-after takes a number of seconds, 0 or more (got -1); for example --stall-after 5"),
            (["replay", "x.pipescope", "--stall-after", "-2.5"],
             "pipescope: --stall-after takes a number of seconds, 0 or more (got -2.5); for example --stall-after 5"),
            (["explain", "1", "--slow-after", "0"],
             "pipescope: --slow-after takes a number of milliseconds, more than 0 (got 0); "
                + "for example --slow-after 33 for a frame at 30 Hz"),
        ]
        for (arguments, expected) in cases {
            let out = try run(arguments)
            XCTAssertEqual(out.status, 64, "\(arguments): \(out.stderr)")
            XCTAssertEqual(firstLine(out), expected, "\(arguments)")
            XCTAssertTrue(out.stderr.contains("Usage: pipescope \(arguments[0]) "), out.stderr)
        }
    }

    // MARK: - 4½. names

    /// `-A` with a name that is no lint lists the lints it takes, each with what it
    /// finds, and `--help` lists them the same way.
    func testAnUnknownLintNameListsTheLints() throws {
        for arguments in [["snapshot", "1", "-A", "stalled", "-A", "sometimes"], ["replay", "x.pipescope", "-A", "sometimes"]] {
            let out = try run(arguments)
            XCTAssertEqual(out.status, 64, "\(arguments): \(out.stderr)")
            XCTAssertEqual(firstLine(out), "pipescope: unknown lint 'sometimes'; -A takes one of these "
                + "(for example -A unretained-cancellable):", "\(arguments)")
            let lines = out.stderr.split(separator: "\n").map(String.init)
            for name in ["unretained-cancellable", "demand-violation", "after-terminal", "stalled", "never-completes",
                         "owner-leak", "contract-violation"] {
                XCTAssertEqual(lines.filter { $0.hasPrefix("  \(name) ") }.count, 1, "\(name): \(out.stderr)")
            }
            XCTAssertTrue(out.stderr.contains("  never-completes         a one-shot publisher"), out.stderr)
            XCTAssertTrue(out.stderr.contains("Usage: pipescope \(arguments[0]) "), out.stderr)
        }
        let help = try run(["snapshot", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("The lints:"), help.stdout)
        XCTAssertTrue(help.stdout.contains("never-completes: a one-shot publisher"), help.stdout)
    }

    // MARK: - 5. damaged and cut recordings

    /// A recording of one pipeline (Map → Sink) with two values, as a program writes it.
    private func onePipelineRecording(at path: String) throws -> Int {
        let batch = onePipelineBatch()
        let writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = ProtocolVersion.current
        welcome.welcome.processName = "tiny"
        welcome.welcome.pid = 7
        writer.append(welcome)
        writer.append(GraphSnapshot())
        writer.append(batch)
        writer.close()
        return batch.events.count
    }

    private func onePipelineBatch() -> EventBatch {
        var builder = BatchBuilder()
        builder.subscribe(1, op: "Map", subscriber: "Sink")
        builder.value(1, "1")
        return builder.build()
    }

    /// The file at `path` as its writer left it before closing it (without the end mark).
    private func unclosed(_ path: String) throws -> Data {
        try XCTUnwrap(FileManager.default.contents(atPath: path))
            .dropLast(RecordingFormat.endMark(reason: "the recording was closed").count)
    }

    /// "after 2 events at 12:03:11.402": where the one-pipeline recording stops.
    private func afterEvents(_ events: Int) -> String {
        "after \(events) events at \(RecordingFormat.clockTime(onePipelineBatch().events.last?.time ?? 0))"
    }

    func testACutRecordingIsSaidTheSameWayByReplayAndExport() throws {
        let whole = directory + "/whole.pipescope"
        let events = try onePipelineRecording(at: whole)
        let bytes = try unclosed(whole)
        // A fourth message cut 3 bytes into its header: the program died while writing.
        let cut = directory + "/cut.pipescope"
        try (bytes + Data([0, 0, 9])).write(to: URL(fileURLWithPath: cut))
        let sentence = "pipescope: \(cut): the recording ends \(afterEvents(events)), inside a batch: the last 3 bytes, after "
            + "byte \(bytes.count), are an incomplete batch (its program stopped while writing it, or the file is a copy cut "
            + "short)."

        let replay = try run(["replay", cut, "--print"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stderr, sentence + " Replaying those events; if it is a copy, copy the whole file again.\n")
        XCTAssertTrue(replay.stdout.hasPrefix("tiny (pid 7, recorded): 1 stage, 0 events dropped\n"), replay.stdout)

        let export = try run(["export", cut, "-o", directory + "/cut.json"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let lines = export.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("pipescope: exported \(events) events (1 stage in 1 pipeline, "), lines[0])
        XCTAssertEqual(lines[1], String(sentence.dropFirst("pipescope: ".count))
                       + " Exported those events; if it is a copy, copy the whole file again.")
    }

    func testADamagedRecordingIsCalledARecordingNotAPeer() throws {
        let whole = directory + "/whole.pipescope"
        let events = try onePipelineRecording(at: whole)
        var bytes = try unclosed(whole)
        let offset = bytes.count
        bytes.append(contentsOf: Framing.frame([0xFF, 0xFF, 0xFF, 0xFF]))  // a frame that is no message
        let damaged = directory + "/damaged.pipescope"
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let sentence = "\(damaged) is a damaged recording: at byte \(offset), \(afterEvents(events)), malformed message: "
            + "pipescope.v1.ServerMessage could not be decoded: its bytes are not a protobuf message (a field's tag or "
            + "length is impossible). Nothing after that can be read."

        let replay = try run(["replay", damaged, "--json"])
        XCTAssertEqual(replay.status, 1, "printed up to the damage, less than was recorded")
        XCTAssertEqual(replay.stderr, "pipescope: " + sentence + " Replaying everything before it.\n")
        XCTAssertFalse(replay.stdout.isEmpty, "the graph before the damage")

        let export = try run(["export", damaged, "-o", directory + "/damaged.json"])
        XCTAssertEqual(export.status, 1)
        XCTAssertEqual(export.stderr.split(separator: "\n").dropFirst().first.map(String.init),
                       sentence + " Exported everything before it.")
        XCTAssertFalse(export.stderr.contains("peer"), export.stderr)
        XCTAssertFalse(export.stderr.contains(".."), export.stderr)
    }

    // MARK: - 7. wording

    func testNotATerminalIsSaidOnceWithWhatThisCommandCanDo() throws {
        let file = directory + "/r.pipescope"
        _ = try onePipelineRecording(at: file)
        let out = try run(["replay", file])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: the inspector needs an interactive terminal, but standard input or output "
            + "is not a terminal (piped or redirected). For output a script can read: `pipescope replay \(file) --json`, "
            + "or --print for a tree.\n")
    }

    /// Plain `pipescope` without a terminal says so before it starts the demo's program:
    /// no program is started (and left serving a socket) for nothing.
    func testTheDemoWithoutATerminalStartsNoProgram() throws {
        let runtime = directory + "/runtime"
        mkdir(runtime, 0o700)
        let out = try run([], environment: ["XDG_RUNTIME_DIR": runtime])
        XCTAssertEqual(out.status, 1)
        XCTAssertEqual(out.stderr, "pipescope: the inspector needs an interactive terminal, but standard input or output "
            + "is not a terminal (piped or redirected). `pipescope demo --headless` runs the demo program alone, for "
            + "`pipescope snapshot` or `pipescope attach` from a terminal.\n")
        let made = (try? FileManager.default.contentsOfDirectory(atPath: runtime + "/pipescope")) ?? []
        XCTAssertEqual(made, [], "no demo program served a socket")
    }

    func testRecordSaysHowItEndedInASentence() throws {
        let probe = try FakeProbe(path: directory + "/fake.sock", frames: [
            FakeProbe.welcome(name: "quiet", pid: 4242), FakeProbe.emptySnapshot,
        ])
        defer { probe.stop() }
        let file = directory + "/quiet.pipescope"
        let out = try run(["record", probe.path, "-o", file, "--seconds", "0.5"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stderr, "pipescope: recorded 0 events from quiet (pid 4242) to \(file) in the 0.5 s of --seconds.\n")
    }

    /// This version 5 inspector attaching to a version 4 program: the program's probe
    /// refuses the Hello with its mismatch message (as the version 4 build words it), and
    /// the inspector says so and exits 1, rather than reading messages it would misread.
    func testAnOlderProgramsRefusalIsShownInWords() throws {
        var refusal = ServerMessage()
        refusal.error.message = ProtocolVersion.mismatchMessage(local: 4, remote: 5)
        let probe = try FakeProbe(path: directory + "/v4.sock", frames: [refusal.framed()])
        defer { probe.stop() }
        let out = try run(["snapshot", probe.path])
        XCTAssertEqual(out.status, 1, out.stderr)
        XCTAssertTrue(out.stderr.contains("protocol version mismatch: this side speaks version 4, the other side 5"),
                      out.stderr)
    }

    // MARK: - 16. locations still being resolved

    func testASnapshotWhoseLocationsStayPendingSaysSo() throws {
        var pending = ServerMessage()
        var snapshot = WireSnapshot()
        snapshot.locationsPending = true
        pending.snapshot = snapshot
        for json in [false, true] {
            // The fake answers no request for a fresh snapshot: the locations stay pending.
            let probe = try FakeProbe(path: directory + "/pending-\(json).sock", frames: [
                FakeProbe.welcome(name: "early", pid: 4242), pending.framed(),
            ])
            defer { probe.stop() }
            let out = try run(["snapshot", probe.path] + (json ? ["--json"] : []))
            XCTAssertEqual(out.status, 0, out.stderr)
            XCTAssertEqual(out.stderr, "")
            if json {
                let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
                XCTAssertEqual(document["locationsPending"] as? Bool, true)
            } else {
                XCTAssertEqual(out.stdout, """
                    early (pid 4242): 0 stages, 0 events dropped
                    locations pending: the program is still resolving where some stages were made (they have no "at …" yet); \
                    take the snapshot again in a moment for them

                    """)
            }
        }
    }
}
