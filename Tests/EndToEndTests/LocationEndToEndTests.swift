import Foundation
import PipescopeTestSupport
import XCTest

/// Locations through the whole path, real processes: a program's tap records them, its
/// symbol thread symbolizes them, `pipescope snapshot --json` prints them. Each expected line is
/// found in the program's source, so the check is exact without hard-coded numbers.
final class LocationEndToEndTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The repository's Sources directory, from this file's path.
    private static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// The 1-based number of the first line of `file` containing `text`, after the first
    /// line containing `after` when given.
    private func line(of text: String, in file: URL, after: String? = nil) throws -> Int {
        let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        let start = try after.map { marker in try XCTUnwrap(lines.firstIndex { $0.contains(marker) }, marker) } ?? 0
        return try XCTUnwrap(lines[start...].firstIndex { $0.contains(text) }, text) + 1
    }

    private func nodes(_ socket: String, until ready: ([[String: Any]]) -> Bool) -> [[String: Any]] {
        var nodes: [[String: Any]] = []
        _ = eventually(timeout: 30) {
            guard let out = try? Programs.run(Programs.pipescope, ["snapshot", socket, "--json"]), out.status == 0,
                  let document = try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
            else { return false }
            nodes = document["nodes"] as? [[String: Any]] ?? []
            return ready(nodes)
        }
        return nodes
    }

    private func location(_ node: [String: Any]?) -> (file: String, line: Int, function: String)? {
        guard let l = node?["location"] as? [String: Any], let file = l["file"] as? String, let line = l["line"] as? Int
        else { return nil }
        return (file, line, l["function"] as? String ?? "")
    }

    func testTheExamplesPipelinesShowTheLinesThatBuiltThem() throws {
        let program = try ExampleProgram(socketPath: directory + "/example.sock")
        defer { program.stop() }
        // A location follows its stage (the program's symbol thread looks it up), so
        // wait for the roots' locations, not only the roots.
        let nodes = nodes(program.socketPath) { nodes in
            ["Filter", "Sequence"].allSatisfy { op in
                nodes.contains { $0["operator"] as? String == op && $0["parent"] is NSNull && $0["location"] is [String: Any] }
            }
        }
        let main = Self.sources.appendingPathComponent("PipescopeExample/main.swift")
        func root(_ op: String) -> [String: Any]? {
            nodes.first { $0["operator"] as? String == op && $0["parent"] is NSNull }
        }
        let filter = try XCTUnwrap(location(root("Filter")), "\(nodes)")
        XCTAssertEqual(filter.file, main.path)
        XCTAssertEqual(filter.line, try line(of: "keep.append(numbers.map", in: main))
        XCTAssertEqual(filter.function, "buildPipelines()")
        let frames = try XCTUnwrap(root("Filter")?["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.first?["line"] as? Int, try line(of: "= buildPipelines()", in: main), "its caller")
        let sequence = try XCTUnwrap(location(root("Sequence")))
        XCTAssertEqual(sequence.line, try line(of: "[\"a\", \"b\", \"c\"].publisher.sink", in: main))
        // The Map and the subject under the Filter were made by the same call.
        let map = try XCTUnwrap(nodes.first { $0["operator"] as? String == "Map" })
        XCTAssertEqual(location(map)?.line, filter.line)
        XCTAssertEqual(map["locationFrom"] as? Int, root("Filter")?["id"] as? Int)
    }

    func testTheDemosPipelinesShowDemoProgramLines() throws {
        let socket = directory + "/demo.sock"
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: Programs.pipescope)
        demo.arguments = ["demo", "--headless"]
        demo.environment = ProcessInfo.processInfo.environment.merging(["PIPESCOPE_SOCKET": socket]) { _, new in new }
        demo.standardOutput = FileHandle.nullDevice
        demo.standardError = FileHandle.nullDevice
        try demo.run()
        defer { demo.terminate(); demo.waitUntilExit() }
        // Stages with a location of their own (`location` alone may be inherited from
        // the pipeline while the stage's own is still being looked up).
        func ownLocation(_ node: [String: Any]) -> Bool {
            node["location"] is [String: Any] && node["locationFrom"] as? Int == node["id"] as? Int
        }
        func innerFuture(_ node: [String: Any]) -> Bool {
            node["operator"] as? String == "Future" && !(node["parent"] is NSNull) && ownLocation(node)
        }
        let nodes = nodes(socket) { nodes in
            nodes.contains(where: innerFuture) && ["Filter", "FlatMap"].allSatisfy { op in
                nodes.contains { $0["operator"] as? String == op && $0["parent"] is NSNull && ownLocation($0) }
            }
        }
        let source = Self.sources.appendingPathComponent("PipescopeDemo/DemoProgram.swift")
        func root(_ op: String) -> [String: Any]? {
            nodes.first { $0["operator"] as? String == op && $0["parent"] is NSNull }
        }
        // ticker = Timer.publish(…).autoconnect().map{}.filter{}.sink{}: the line of `.sink`.
        let ticker = try XCTUnwrap(location(root("Filter")), "\(nodes)")
        XCTAssertEqual(ticker.file, source.path)
        XCTAssertEqual(ticker.line, try line(of: ".sink { _ in }", in: source, after: "ticker = Timer.publish"))
        XCTAssertEqual(ticker.function, "DemoProgram.start()")
        // Its callers are the program's, up to where a dependency's code starts
        // (swift-argument-parser's `main`, which ran the demo command).
        let callers = try XCTUnwrap(root("Filter")?["frames"] as? [[String: Any]])
        let callerFiles = callers.compactMap { $0["file"] as? String }
        XCTAssertFalse(callerFiles.isEmpty, "\(callers)")
        XCTAssertFalse(callerFiles.contains { $0.contains("/checkouts/") }, "\(callerFiles)")
        XCTAssertEqual(callerFiles.first, Self.sources.appendingPathComponent("pipescope/DemoCommand.swift").path)
        let requests = try XCTUnwrap(location(root("FlatMap")))
        XCTAssertEqual(requests.line, try line(of: ".sink { _ in }", in: source, after: "requestsSink = requests"))
        // Each Future was subscribed while `requests.send` delivered a value: its own line.
        let future = try XCTUnwrap(nodes.first(where: innerFuture))
        let sent = try XCTUnwrap(location(future))
        XCTAssertEqual(sent.line, try line(of: "requests.send(", in: source))
        XCTAssertEqual(sent.function, "DemoProgram.tick()")
        XCTAssertEqual(future["locationFrom"] as? Int, future["id"] as? Int)
    }
}
