import Foundation
import PipescopeClient
@testable import PipescopeExport
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// The intern tables are bounded: a long recording clears them now and then.
final class PerfettoInternTableTests: XCTestCase {
    /// Intern tables small enough to fill many times over: each time they are cleared,
    /// the next packet says so, and every iid still resolves to what it meant.
    func testFullInternTablesAreClearedAndTheSequenceSaysSo() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .count(400))
        for i in 0..<300 { b.value(1, "text \(i % 40)") }
        b.finish(1)
        let batch = b.build()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recording = directory + "/small-tables.pipescope"
        try KnownPipelines.writeRecording(to: recording, process: "app", batches: [batch])
        let trace = recording + ".perfetto-trace"
        let file = try PerfettoFileWriter(path: trace)
        let sequence = PerfettoSequence(file: file, interner: PerfettoInterner(maximumEntries: 25, maximumBytes: 1 << 20))
        let exporter = TraceWalk(writer: PerfettoWriter(sequence: sequence))
        var messages = try RecordingMessages(path: recording)
        while let message = try messages.next() { try exporter.consume(message) }
        _ = try exporter.finish()
        try file.finish()
        XCTAssertGreaterThanOrEqual(exporter.writer.delayed.internResets, 3)   // the values, held for their arrows
        var facts = PerfettoFacts.of(process: "app", pid: KnownPipelines.pid, snapshot: GraphSnapshot(), batches: [batch])
        facts.value_texts = ["1": (0..<300).map { "text \($0 % 40)" }]
        try PerfettoChecker.check(trace, facts)
    }
}
