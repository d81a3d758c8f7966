import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// An event has one number everywhere: the export's instants carry the number the
/// inspector's history line, `e`, the event log and `replay --at` give the event.
final class EventNumberExportTests: XCTestCase {
    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/demo-v3.pipescope").path

    func testEachValueAndDemandInstantCarriesTheEventsNumber() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let copy = directory + "/demo.pipescope"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: copy)
        let (trace, _) = try TraceFile.export(copy)
        // The recording's own numbers, as replay numbers them.
        let recording = try Recording.read(path: Self.fixture)
        var expected: [String: [EventID]] = ["value": [], "request": [], "demand": []]
        for case .batch(let batch) in recording.messages {
            for event in batch.events {
                switch event.kind {
                case .value: expected["value"]!.append(event.id)
                case .request: expected["request"]!.append(event.id)
                case .demand: expected["demand"]!.append(event.id)
                default: break
                }
            }
        }
        XCTAssertGreaterThan(expected["value"]!.count, 20)
        for (name, numbers) in expected {
            // A stage that mirrors another (type erasure) repeats its values, without arrows:
            // the same event, so the same number.
            let shown = trace.named(name).compactMap { ($0["args"] as? [String: Any])?["event"] as? Int }
                .map(EventID.init)
            XCTAssertEqual(Set(shown), Set(numbers), "\(name) instants' event numbers")
            XCTAssertEqual(shown.count, trace.named(name).count, "every \(name) instant is numbered")
            XCTAssertFalse(numbers.isEmpty, "\(name) instants are expected")
            XCTAssertTrue(numbers.allSatisfy { recording.graph(upTo: $0) != nil }, "replay --at reaches each")
        }
    }
}
