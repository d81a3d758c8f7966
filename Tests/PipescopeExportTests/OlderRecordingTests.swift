import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Recordings made by earlier protocol versions replay and export as they did when they
/// were made: `demo-v3.pipescope` was recorded from `pipescope demo --headless` by the
/// version 3 build (`pipescope record PID -o … --seconds 3`), and `demo-v3.export.json` is
/// what that build's `pipescope export` made of it. Values travelled as text then; a
/// version 4 reader must show exactly the same texts.
final class OlderRecordingTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    func testAVersionThreeRecordingExportsExactlyAsVersionThreeExportedIt() throws {
        let recording = Self.fixtures.appendingPathComponent("demo-v3.pipescope").path
        let expected = Self.fixtures.appendingPathComponent("demo-v3.export.json").path
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/demo-v3.json"
        var messages = try RecordingMessages(path: recording)
        // The source as the version 3 build's command line named it.
        let result = try RecordingExport.run(&messages, to: output, source: "Tests/Fixtures/demo-v3.pipescope",
                                             format: .json)
        XCTAssertEqual(result.stop, .complete)
        let made = try String(contentsOfFile: output, encoding: .utf8)
        let kept = try String(contentsOfFile: expected, encoding: .utf8)
        XCTAssertEqual(made, kept, "the version 3 recording's export changed")
    }

    func testAVersionThreeRecordingReplaysItsGraphAndValueTexts() throws {
        let recording = Self.fixtures.appendingPathComponent("demo-v3.pipescope").path
        var messages = try RecordingMessages(path: recording)
        var attached: String?
        var texts: [String] = []
        var operators = Set<String>()
        while let message = try messages.next() {
            switch message {
            case .attached(let process, _, _): attached = process
            case .snapshot(let snapshot):
                operators.formUnion(snapshot.nodes.map(\.operatorName))
            case .batch(let batch):
                operators.formUnion(batch.nodes.map(\.operatorName))
                texts += batch.events.filter { $0.kind == .value }.map(\.text)
            default: break
            }
        }
        XCTAssertEqual(attached, "pipescope-demo")
        XCTAssertTrue(operators.isSuperset(of: ["Map", "Filter", "FlatMap", "Debounce", "Scan"]), "\(operators.sorted())")
        XCTAssertGreaterThan(texts.count, 20)
        XCTAssertTrue(texts.contains("85"), "an Int value's text: \(texts)")
        XCTAssertTrue(texts.contains { $0.hasPrefix("2026-11-26 21:28:") }, "a described value's text: \(texts)")
    }
}
