import Foundation
import PipescopeTestSupport
import XCTest

/// `pipescope explain` against a separate program that links Pipescope, run as real
/// processes: where its pipelines wait, and where a stage's last value came from.
final class ExplainCommandTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func json(_ arguments: [String]) throws -> [String: Any] {
        let out = try Programs.run(Programs.pipescope, ["explain"] + arguments + ["--json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        // Pretty-printed, as every --json is, with or without --stage.
        XCTAssertTrue(out.stdout.hasPrefix("{\n  \""), "\(out.stdout.prefix(120))")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
    }

    /// The example's `numbers.map { $0 * 2 }.filter { $0 % 4 == 0 }.sink`, once its
    /// Filter has let a value through.
    private func filterWithAValue(_ program: ExampleProgram) throws -> Int {
        var filter: Int?
        XCTAssertTrue(eventually(timeout: 30) {
            let out = try? Programs.run(Programs.pipescope, ["snapshot", program.socketPath, "--json"])
            let document = out.flatMap { try? JSONSerialization.jsonObject(with: Data($0.stdout.utf8)) as? [String: Any] }
            let nodes = document?["nodes"] as? [[String: Any]] ?? []
            filter = nodes.first {
                $0["operator"] as? String == "Filter" && $0["status"] as? String == "active" && ($0["values"] as? Int ?? 0) > 0
            }?["id"] as? Int
            return filter != nil
        }, "the example's filter passes a value")
        return try XCTUnwrap(filter)
    }

    func testTheChainOfAStagesLastValueGoesBackToTheSubject() throws {
        let program = try ExampleProgram(socketPath: directory + "/example.sock")
        defer { program.stop() }
        let filter = try filterWithAValue(program)
        let document = try json([program.socketPath, "--stage", String(filter)])
        XCTAssertEqual(document["stage"] as? Int, filter)
        XCTAssertEqual(document["end"] as? String, "origin")
        let chain = try XCTUnwrap(document["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.map { $0["operator"] as? String }, ["Filter", "Map", "PassthroughSubject"])
        XCTAssertEqual(chain.first?["stage"] as? Int, filter)
        let values = chain.compactMap { ($0["value"] as? String).flatMap { Int($0) } }
        XCTAssertEqual(values.count, 3, "\(chain)")
        XCTAssertEqual(values[0], values[1], "the filter passed the map's value on")
        XCTAssertEqual(values[1], values[2] * 2, "the map doubled the subject's")
        XCTAssertEqual(values[0] % 4, 0)
        let times = chain.compactMap { $0["time"] as? Int }
        XCTAssertEqual(times, times.sorted(by: >), "newest first")
        XCTAssertTrue(chain.allSatisfy { !($0["thread"] as? String ?? "").isEmpty }, "each hop names its thread")
        XCTAssertTrue(document.keys.contains("wait"))

        let text = try Programs.run(Programs.pipescope, ["explain", program.socketPath, "--stage", String(filter)])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("#\(filter) Filter"), text.stdout)
        XCTAssertTrue(text.stdout.contains("← Map"), text.stdout)
        XCTAssertTrue(text.stdout.contains("← PassthroughSubject"), text.stdout)
    }

    func testEveryActivePipelineHasAVerdict() throws {
        let program = try ExampleProgram(socketPath: directory + "/verdicts.sock")
        defer { program.stop() }
        let filter = try filterWithAValue(program)
        // A threshold no run reaches: everything flows.
        let document = try json([program.socketPath, "--stall-after", "100000"])
        let pipelines = try XCTUnwrap(document["pipelines"] as? [[String: Any]])
        let row = try XCTUnwrap(pipelines.first { $0["root"] as? Int == filter })
        XCTAssertTrue(row["wait"] is NSNull, "\(row)")
        XCTAssertTrue(pipelines.allSatisfy { $0["wait"] is NSNull })
    }

    func testAStageThatIsNotThereIsAClearError() throws {
        let program = try ExampleProgram(socketPath: directory + "/missing.sock")
        defer { program.stop() }
        let out = try Programs.run(Programs.pipescope, ["explain", program.socketPath, "--stage", "987654"])
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("there is no stage #987654"), out.stderr)
        XCTAssertTrue(out.stderr.contains("pipescope snapshot"), out.stderr)
    }
}
