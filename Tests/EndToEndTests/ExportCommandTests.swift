import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope export` and `pipescope record --perfetto`, run as real processes: what a
/// person sees when it works, when the recording is cut short, and when it cannot work.
final class ExportCommandTests: XCTestCase {
    private var directory: String!
    private let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Resources/demo.pipescope").path

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func trace(_ path: String) throws -> [[String: Any]] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path), "\(path) was written")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(object["traceEvents"] as? [[String: Any]])
    }

    func testExportingTheDemoRecording() throws {
        let out = try Programs.run(Programs.pipescope, ["export", demo, "-o", directory + "/demo.json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stderr.contains("Open it at ui.perfetto.dev"), out.stderr)
        let events = try trace(directory + "/demo.json")
        XCTAssertGreaterThan(events.filter { $0["ph"] as? String == "X" }.count, 20)
        XCTAssertGreaterThan(events.filter { $0["name"] as? String == "value" }.count, 100)
    }

    func testACutRecordingIsExportedUpToTheCutAndSaysWhere() throws {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: demo))
        let cut = directory + "/crashed.pipescope"
        try bytes.dropLast(7).write(to: URL(fileURLWithPath: cut))
        let out = try Programs.run(Programs.pipescope, ["export", cut, "-o", directory + "/crashed.json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stderr.contains("\(cut): the recording ends after "), out.stderr)
        XCTAssertTrue(out.stderr.contains(", inside a batch: the last "), out.stderr)
        XCTAssertTrue(out.stderr.contains("are an incomplete batch (its program stopped while writing it, or the file is a "
                                          + "copy cut short). Exported those events; if it is a copy, copy the whole file "
                                          + "again."), out.stderr)
        let events = try trace(directory + "/crashed.json")
        XCTAssertEqual(events.filter { $0["name"] as? String == "recording ends" }.count, 1)
    }

    func testErrorsSayWhatHappenedAndWhatToDo() throws {
        let notARecording = directory + "/notes.txt"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: notARecording))
        let cases: [([String], [String])] = [
            (["export", directory + "/missing.pipescope", "-o", directory + "/x.json"], ["no such file", "pipescope record"]),
            (["export", notARecording, "-o", directory + "/x.json"], ["not a Pipescope recording", "pipescope record"]),
            (["export", demo, "-o", directory + "/no/such/dir/x.json"], ["does not exist", "Choose another file with -o"]),
            (["export", demo, "-o", directory], ["it is a directory", "Choose another file with -o"]),
        ]
        for (arguments, phrases) in cases {
            let out = try Programs.run(Programs.pipescope, arguments)
            XCTAssertEqual(out.status, 1, "\(arguments): \(out.stderr)")
            for phrase in phrases { XCTAssertTrue(out.stderr.contains(phrase), "\(arguments): \(out.stderr)") }
            XCTAssertFalse(out.stderr.contains("Fatal error"), out.stderr)
        }
    }

    func testRecordWritesTheTraceToo() throws {
        let program = try ExampleProgram(socketPath: directory + "/rec.sock", environment: ["EXAMPLE_SEND_LIMIT": "10"])
        defer { program.stop() }
        let out = try Programs.run(Programs.pipescope, ["record", program.socketPath, "-o", directory + "/rec.pipescope",
                                                        "--seconds", "3", "--perfetto", directory + "/rec.json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stderr.contains("recorded"), out.stderr)
        XCTAssertTrue(out.stderr.contains("exported"), out.stderr)
        let events = try trace(directory + "/rec.json")
        XCTAssertTrue(events.contains { $0["ph"] as? String == "X" && $0["name"] as? String == "Filter" }, "the example's pipeline")
        XCTAssertTrue(events.contains { $0["name"] as? String == "process_name" })
    }
}
