import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
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

    /// Reads a recording's batches (value events' texts by stage, in order) and graph
    /// operators, as replay reads them.
    private func replay(_ path: String) throws -> (process: String?, operators: Set<String>, values: [String]) {
        var messages = try RecordingMessages(path: path)
        var process: String?
        var operators = Set<String>()
        var values: [String] = []
        while let message = try messages.next() {
            switch message {
            case .attached(let name, _, _): process = name
            case .snapshot(let snapshot): operators.formUnion(snapshot.nodes.map(\.operatorName))
            case .batch(let batch):
                operators.formUnion(batch.nodes.map(\.operatorName))
                values += batch.events.filter { $0.kind == .value }.map { "\($0.node): \($0.text)" }
            default: break
            }
        }
        return (process, operators, values)
    }

    /// A version 2 recording: the version 3 fixture written as version 2 wrote it (its
    /// Welcome's version 2, each batch's trailer as loose fields, none of the columns
    /// version 3 added: causes, threads, timings, locations). It replays with the same
    /// stages and value texts.
    func testAVersionTwoRecordingReplaysItsGraphAndValueTexts() throws {
        let v3 = Self.fixtures.appendingPathComponent("demo-v3.pipescope").path
        let contents = try RecordingFormat.read(Array(try Data(contentsOf: URL(fileURLWithPath: v3))))
        let v2Messages: [ServerMessage] = contents.messages.map { message in
            var m = message
            switch m.body {
            case .welcome?: m.welcome.protocolVersion = 2
            case .snapshot?:
                m.snapshot.recent = WireRecentEvents()
                m.snapshot.locationsPending = false
                for i in m.snapshot.nodes.indices {
                    m.snapshot.nodes[i].info.clearLocation()
                    m.snapshot.nodes[i].info.frames = []
                }
            case .packed(let p)?:
                var old = WirePackedBatch()
                old.resetStrings = p.resetStrings
                old.newStrings = p.newStrings
                (old.nodeIds, old.nodeParents, old.nodeOperators) = (p.nodeIds, p.nodeParents, p.nodeOperators)
                (old.nodePublisherTypes, old.nodeSubscribers) = (p.nodePublisherTypes, p.nodeSubscribers)
                (old.nodeThreads, old.nodeCreatedNs) = (p.nodeThreads, p.nodeCreatedNs)
                (old.kinds, old.nodeDeltas, old.baseTimeNs, old.timeDeltas) = (p.kinds, p.nodeDeltas, p.baseTimeNs, p.timeDeltas)
                (old.demands, old.others, old.causes) = (p.demands, p.others, p.causes)
                (old.textEvents, old.texts) = (p.textEvents, p.texts)
                let t = p.trailer
                (old.sequence, old.dropped, old.droppedSinceLast) = (t.sequence, t.dropped, t.droppedSinceLast)
                (old.paused, old.pending, old.resumedBecause, old.lastValues) = (t.paused, t.pending, t.resumedBecause, t.lastValues)
                m.packed = old
            default: break
            }
            return m
        }
        XCTAssertTrue(v2Messages.contains { !$0.packed.kinds.isEmpty && !$0.packed.hasTrailer && $0.packed.sequence > 0 })
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let v2 = directory + "/demo-v2.pipescope"
        try Data(RecordingFormat.magic + v2Messages.flatMap { $0.framed() }).write(to: URL(fileURLWithPath: v2))

        let expected = try replay(v3), got = try replay(v2)
        XCTAssertEqual(got.process, "pipescope-demo")
        XCTAssertEqual(got.operators, expected.operators)
        XCTAssertEqual(got.values, expected.values)
        XCTAssertGreaterThan(got.values.count, 20)
    }
}
