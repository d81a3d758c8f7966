import Foundation
import PipescopeClient
@testable import PipescopeExport
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// How Perfetto shows the trace, beyond its decoding: what its import makes of the
/// tracks, their order and the clocks (scripts/check-perfetto-trace.py checks each on
/// every export; these recordings are made to show each).
final class PerfettoDisplayTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func export(_ name: String, snapshot: GraphSnapshot = GraphSnapshot(), batches: [EventBatch],
                        options: ExportOptions = ExportOptions(),
                        file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let recording = directory + "/\(name).pipescope"
        try KnownPipelines.writeRecording(to: recording, process: "app", snapshot: snapshot, batches: batches)
        var messages = try RecordingMessages(path: recording)
        let trace = recording + ".perfetto-trace"
        _ = try RecordingExport.run(&messages, to: trace, options: options)
        let facts = PerfettoFacts.of(process: "app", pid: KnownPipelines.pid, snapshot: snapshot, batches: batches)
        try PerfettoChecker.check(trace, facts, file: file, line: line)
        return trace
    }

    /// A stage live for ten minutes before the recording starts at its first event: its
    /// slice starts there, not ten minutes of empty timeline earlier.
    func testAStageLiveBeforeTheRecordingStartsWithIt() throws {
        var before = BatchBuilder(start: BatchBuilder.baseNanos - 600_000_000_000)
        before.subscribe(1, op: "CurrentValueSubject", subscriber: "Sink")
        before.subscription(1)
        before.request(1, .unlimited)
        before.value(1, "0")
        var b = BatchBuilder()
        b.value(1, "1")
        b.subscribe(2, op: "Just", subscriber: "Sink")
        b.finish(2)
        _ = try export("before", snapshot: Graph.folding(before.build()).snapshot(), batches: [b.build(sequence: 10)])
    }

    /// Every stage's track is named before its first event: here a lint drawn while the
    /// stage lives on (more values than it asked for), long before it ends.
    func testEveryStageTrackIsNamedBeforeItsEvents() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "IgnoresDemand", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 12))
        b.subscription(1)
        b.request(1, .count(1))
        b.value(1, "1")
        b.value(1, "2")
        var later = BatchBuilder(start: b.now + 500_000_000)
        later.cancel(1)
        _ = try export("named", batches: [b.build(), later.build(sequence: 100)])
    }

    /// Twelve pipelines: ranked where Perfetto reads ranks (under a plain track, not the
    /// process's own), so #10 comes after #9 and not, by name, after #1.
    func testPipelinesAreInTheirOrderNotByName() throws {
        var b = BatchBuilder()
        for id: NodeID in 1...12 { b.subscribe(id, op: "Just", subscriber: "Sink") }
        for id: NodeID in 1...12 { b.finish(id) }
        _ = try export("ordered", batches: [b.build()])
    }

    /// Inner stages of one stage, each ended and pruned before the next subscribes: each
    /// has a rank of its own among its siblings (the graph's children start over once the
    /// ended ones are pruned).
    func testEachInnerStageHasARankOfItsOwn() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "FlatMap", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .unlimited)
        var batches: [EventBatch] = []
        var sequence: UInt64 = 0
        for inner: NodeID in 2...4 {
            b.subscribe(inner, parent: 1, op: "Future", subscriber: "FlatMap")
            b.value(inner, "\(inner)")
            b.finish(inner)
            sequence += 10
            batches.append(b.build(sequence: sequence))
            // Three seconds on, past the export's two seconds of ended stages: pruned.
            b = BatchBuilder(start: b.now + 3_000_000_000)
            b.value(1, "tick")
            sequence += 10
            batches.append(b.build(sequence: sequence))
            b = BatchBuilder(start: b.now + 1_000_000)
        }
        b.cancel(1)
        batches.append(b.build(sequence: sequence + 10))
        _ = try export("inners", batches: batches)
    }

    /// Intern tables cleared mid-trace on an event earlier than the one before it (threads
    /// interleave in a batch): the sequence's new clock snapshot is not older than its
    /// last one (Perfetto rejects such a snapshot, and every later delta would be shifted).
    func testAClearOfTheInternTablesNeverSetsTheClockBack() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .unlimited)
        let start = b.now
        for i in 0..<300 {
            // Each value stamped before the one before it, as a batch's threads may be.
            b.now = start + Int64(300 - i) * 1_000
            b.value(1, "text \(i % 40)")
        }
        b.now = start + 1_000_000
        b.finish(1)
        let batch = b.build()
        let trace = directory + "/clears.perfetto-trace"
        let file = try PerfettoFileWriter(path: trace)
        let sequence = PerfettoSequence(file: file, interner: PerfettoInterner(maximumEntries: 25, maximumBytes: 1 << 20))
        let walk = TraceWalk(writer: PerfettoWriter(sequence: sequence))
        try walk.consume(.attached(process: "app", pid: KnownPipelines.pid))
        try walk.consume(.batch(batch))
        _ = try walk.finish()
        try file.finish()
        XCTAssertGreaterThanOrEqual(walk.writer.delayed.internResets, 3)
        let facts = PerfettoFacts.of(process: "app", pid: KnownPipelines.pid, snapshot: GraphSnapshot(), batches: [batch])
        try PerfettoChecker.check(trace, facts)
    }

    /// A stage that ends with demand outstanding (it asked for five, got two): its
    /// counter ends with it, at 0, and a request on the subscription it shared with a
    /// live stage draws nothing on it after.
    func testADemandCounterEndsWithItsStage() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Share", subscriber: "Sink")
        b.subscribe(2, op: "Share", subscriber: "Sink")
        b.subscription(1)
        b.subscription(2, owner: 1)
        b.request(1, .count(5))
        b.value(1, "a")
        b.value(1, "b")
        b.finish(2)
        b.request(1, .count(1))
        b.finish(1)
        _ = try export("demand", batches: [b.build()])
    }
}
