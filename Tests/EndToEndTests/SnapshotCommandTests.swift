import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope snapshot` and `pipescope attach` against a separate program that links
/// Pipescope, run as real processes.
final class SnapshotCommandTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func snapshotJSON(_ target: String) throws -> [String: Any] {
        let out = try Programs.run(Programs.pipescope, ["snapshot", target, "--json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8))
        return try XCTUnwrap(object as? [String: Any])
    }

    func testSnapshotJSONOfASeparateProgram() throws {
        let program = try ExampleProgram(socketPath: directory + "/example.sock")
        defer { program.stop() }
        // Until the driver has sent a value, however long the machine takes to get there.
        var document: [String: Any] = [:]
        XCTAssertTrue(eventually(timeout: 30) {
            document = (try? self.snapshotJSON(program.socketPath)) ?? [:]
            return (document["nodes"] as? [[String: Any]] ?? []).contains {
                $0["operator"] as? String == "PassthroughSubject" && ($0["values"] as? Int ?? 0) > 0
            }
        }, "the example sends values")
        XCTAssertEqual(document["dropped"] as? Int, 0)
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        func node(_ op: String, status: String) -> [String: Any]? {
            nodes.first { $0["operator"] as? String == op && $0["status"] as? String == status }
        }
        // numbers.map { $0 * 2 }.filter { $0 % 4 == 0 }.sink
        let filter = try XCTUnwrap(node("Filter", status: "active"))
        XCTAssertTrue(filter["parent"] is NSNull, "a root's parent is null")
        XCTAssertEqual(filter["subscriber"] as? String, "Sink")
        XCTAssertEqual((filter["demand"] as? [String: Any])?["requested"] as? String, "unlimited")
        let map = try XCTUnwrap(node("Map", status: "active"))
        XCTAssertEqual(map["parent"] as? Int, filter["id"] as? Int)
        let subject = try XCTUnwrap(nodes.first {
            $0["operator"] as? String == "PassthroughSubject" && $0["parent"] as? Int == map["id"] as? Int
        })
        let sent = try XCTUnwrap(subject["values"] as? Int)
        XCTAssertGreaterThan(sent, 0)
        XCTAssertEqual(map["values"] as? Int, sent)
        XCTAssertEqual(filter["values"] as? Int, sent / 2, "filter passes every other doubled value")
        XCTAssertNotNil(subject["lastValue"] as? String)
        XCTAssertTrue((filter["publisherType"] as? String)?.hasPrefix("Filter<Map<PassthroughSubject<Int, Never>") == true)
        // ["a", "b", "c"].publisher.sink finished after three values.
        let sequence = try XCTUnwrap(node("Sequence", status: "finished"))
        XCTAssertEqual(sequence["values"] as? Int, 3)
        XCTAssertEqual(sequence["lastValue"] as? String, "c")
        // numbers.sink, cancelled at once.
        let cancelled = try XCTUnwrap(node("PassthroughSubject", status: "cancelled"))
        XCTAssertEqual(cancelled["values"] as? Int, 0)
        XCTAssertTrue(cancelled["parent"] is NSNull)
    }

    func testSnapshotByPidUsesTheDefaultSocketPath() throws {
        let program = try ExampleProgram(socketPath: nil)
        defer { program.stop() }
        let document = try snapshotJSON(String(program.pid))
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        XCTAssertTrue(nodes.contains { $0["operator"] as? String == "Filter" })
    }

    func testPlainSnapshotIsAnIndentedTree() throws {
        let program = try ExampleProgram(socketPath: directory + "/plain.sock")
        defer { program.stop() }
        let out = try Programs.run(Programs.pipescope, ["snapshot", program.socketPath])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertTrue(out.stdout.contains("  Filter -> Sink  active  demand unlimited"), out.stdout)
        XCTAssertTrue(out.stdout.contains("    Map  active"), out.stdout)
    }

    func testAttachWhereNoProgramRunsSaysSoAndFails() throws {
        for command in ["attach", "snapshot"] {
            let out = try Programs.run(Programs.pipescope, [command, directory + "/nobody.sock"])
            XCTAssertEqual(out.status, 1)
            XCTAssertTrue(out.stderr.contains("no Pipescope probe at \(directory!)/nobody.sock"), out.stderr)
            XCTAssertTrue(out.stderr.contains("Pipescope.start()"), out.stderr)
            XCTAssertTrue(out.stdout.isEmpty)
        }
        let pid = try Programs.run(Programs.pipescope, ["snapshot", "999999"])
        XCTAssertEqual(pid.status, 1)
        XCTAssertTrue(pid.stderr.contains("999999.sock"), pid.stderr)
    }

    func testAttachWithoutATerminalPointsToSnapshot() throws {
        let program = try ExampleProgram(socketPath: directory + "/notty.sock")
        defer { program.stop() }
        let out = try Programs.run(Programs.pipescope, ["attach", program.socketPath])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("snapshot"), out.stderr)
        XCTAssertFalse(out.stderr.contains("Fatal error"), out.stderr)
    }

    func testTheProgramOutlivesItsInspectors() throws {
        let program = try ExampleProgram(socketPath: directory + "/outlive.sock")
        defer { program.stop() }
        for _ in 0..<3 { _ = try snapshotJSON(program.socketPath) }
        XCTAssertTrue(program.process.isRunning)
        _ = try snapshotJSON(program.socketPath)
    }
}
