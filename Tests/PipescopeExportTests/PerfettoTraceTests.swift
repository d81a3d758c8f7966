import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
import PipescopeClient
import PipescopeExport
import PipescopeGraph
@testable import PipescopeProbe
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `pipescope export -o X.perfetto-trace`: Perfetto's own format, decoded with Perfetto's
/// own schema (scripts/check-perfetto-trace.py, with the `perfetto` package's
/// `perfetto_trace_pb2`) and checked against what the recording holds (``PerfettoFacts``).
final class PerfettoTraceTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Exports a recording to Perfetto's format and runs the checker on it.
    private func exportAndCheck(_ recording: String, facts: PerfettoFacts,
                                file: StaticString = #filePath, line: UInt = #line) throws -> RecordingExport.Result {
        var messages = try RecordingMessages(path: recording, chunkSize: 4096)
        let trace = recording + ".perfetto-trace"
        let result = try RecordingExport.run(&messages, to: trace, source: recording)
        XCTAssertEqual(result.format, .perfetto, file: file, line: line)
        try PerfettoChecker.check(trace, facts, file: file, line: line)
        return result
    }

    // MARK: - Real pipelines

    /// OpenCombine pipelines tapped by a real probe: a map and filter on one thread, a
    /// receive(on:) hop to a queue (its values caused across threads and batches), a
    /// subject shared by two subscribers, a sequence cut short by prefix (which cancels
    /// its upstream), a pipeline its sink cancels, and one still live at the end.
    func testARealRecordingIsAValidPerfettoTraceWithItsStagesArrowsAndDemand() throws {
        let probe = Probe()
        probe.enable()
        defer { probe.disable() }
        let snapshot = probe.snapshot()
        var batches: [EventBatch] = []
        let queue = DispatchQueue(label: "perfetto-test.hop")

        let numbers = PassthroughSubject<Int, Never>()
        var keep: [AnyCancellable] = []
        keep.append(numbers.map { $0 * 2 }.filter { $0 % 4 == 0 }.sink { _ in })
        keep.append(numbers.sink { _ in })
        let arrived = expectation(description: "values arrive on the queue")
        arrived.expectedFulfillmentCount = 3
        keep.append(numbers.receive(on: queue).map { "n\($0)" }.sink { _ in arrived.fulfill() })
        let cancelled = numbers.map { $0 + 1 }.sink { _ in }
        keep.append([1, 2, 3, 4, 5].publisher.prefix(2).sink { _ in })
        keep.append(Just("done").sink { _ in })
        numbers.send(1)
        numbers.send(2)
        batches.append(probe.flush())            // the queue's deliveries come in the next batch
        numbers.send(3)
        wait(for: [arrived], timeout: 10)
        cancelled.cancel()
        batches.append(probe.flush())
        let recording = directory + "/real.pipescope"
        try KnownPipelines.writeRecording(to: recording, process: "perfetto-test", snapshot: snapshot, batches: batches)

        let facts = PerfettoFacts.of(process: "perfetto-test", pid: KnownPipelines.pid, snapshot: snapshot, batches: batches)
        XCTAssertGreaterThanOrEqual(facts.stages.count, 10)
        let receiveOn = try XCTUnwrap(facts.stages.first { $0.operator == "ReceiveOn" }, "\(facts.stages.map(\.operator))")
        XCTAssertTrue(facts.value_arrows.contains { $0[1] == receiveOn.id || $0[0] == receiveOn.id },
                      "an arrow crosses the receive(on:) hop: \(facts.value_arrows)")
        XCTAssertGreaterThan(facts.value_arrows.count, 5)
        let result = try exportAndCheck(recording, facts: facts)
        XCTAssertEqual(result.summary.stages, facts.stages.count)
        XCTAssertGreaterThanOrEqual(result.summary.flows, facts.value_arrows.count + 1, "value arrows and a cancel's")
        withExtendedLifetime(keep) {}
    }

    // MARK: - Known pipelines

    /// The JSON export's reference recording: shared subscriptions, the inspector's and
    /// an owner's cancels, a cancel continued in the next batch, type erasure, dropped
    /// events, a stage live since before the recording.
    func testTheKnownPipelinesAsPerfetto() throws {
        let recording = directory + "/known.pipescope"
        try KnownPipelines.write(to: recording)
        let facts = PerfettoFacts.of(process: KnownPipelines.process, pid: KnownPipelines.pid,
                                     snapshot: KnownPipelines.snapshot(), batches: KnownPipelines.batches(),
                                     cancelArrows: KnownPipelines.expectedArrows.map { [$0.from, $0.to] }.sorted { "\($0)" < "\($1)" })
        let result = try exportAndCheck(recording, facts: facts)
        XCTAssertEqual(result.stop, .complete)
        XCTAssertEqual(result.summary.flows, KnownPipelines.expectedArrows.count)
    }

    /// Hostile value texts (quotes, control characters, repaired invalid UTF-8, 10 kB)
    /// in values, errors, names and the process: the trace decodes, and keeps them exactly.
    func testHostileTextsAsPerfetto() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map\"\n\u{0}", type: "Map<\"T\">\u{2028}", subscriber: "Sink\\", thread: "th\"read\u{1}")
        b.subscription(1)
        b.request(1, .unlimited)
        for text in HostileTextTests.hostile + HostileTextTests.hostile { b.value(1, text) }  // each twice: interned
        b.fail(1, HostileTextTests.hostile[7])
        let batch = b.build()
        let recording = directory + "/hostile.pipescope"
        let process = "app \"quoted\"\n\u{0}"
        try KnownPipelines.writeRecording(to: recording, process: process, batches: [batch])
        var facts = PerfettoFacts.of(process: process, pid: KnownPipelines.pid, snapshot: GraphSnapshot(), batches: [batch])
        facts.value_texts = ["1": HostileTextTests.hostile + HostileTextTests.hostile]
        facts.error_texts = ["1": HostileTextTests.hostile[7]]
        _ = try exportAndCheck(recording, facts: facts)
    }

    // MARK: - Formats and streaming

    func testTheFormatFollowsTheExtensionUnlessGiven() {
        XCTAssertEqual(TraceFormat(forPath: "a.perfetto-trace"), .perfetto)
        XCTAssertEqual(TraceFormat(forPath: "a.pftrace"), .perfetto)
        XCTAssertEqual(TraceFormat(forPath: "a.JSON"), .json)
        XCTAssertEqual(TraceFormat(forPath: "trace"), .perfetto)
    }

    /// `record --perfetto` streams: a session fed message by message while the recording
    /// is written gives the same trace as exporting the finished file.
    func testStreamingGivesTheSameTraceAsExportingTheFile() throws {
        let recording = directory + "/known.pipescope"
        try KnownPipelines.write(to: recording)
        var messages = try RecordingMessages(path: recording)
        let exported = try RecordingExport.run(&messages, to: directory + "/file.perfetto-trace")
        let live = try TraceExportSession(path: directory + "/live.perfetto-trace")
        var again = try RecordingMessages(path: recording)
        while let message = try again.next() { try live.consume(message) }
        let streamed = try live.finish(stop: .complete)
        XCTAssertEqual(streamed.summary, exported.summary)
        XCTAssertEqual(FileManager.default.contents(atPath: directory + "/live.perfetto-trace"),
                       FileManager.default.contents(atPath: directory + "/file.perfetto-trace"))
    }

    /// A recording cut short: everything before the cut, and a last instant saying where.
    func testACutRecordingIsExportedUpToTheCut() throws {
        let whole = directory + "/whole.pipescope"
        try KnownPipelines.write(to: whole)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: whole))
        let cut = directory + "/cut.pipescope"
        // Killed 5 bytes before the end of its last batch, so before its end mark too.
        let endMark = RecordingFormat.endMark(reason: "the recording was closed").count
        try bytes.dropLast(endMark + 5).write(to: URL(fileURLWithPath: cut))
        let batches = Array(KnownPipelines.batches().prefix(2))
        var facts = PerfettoFacts.of(process: KnownPipelines.process, pid: KnownPipelines.pid,
                                     snapshot: KnownPipelines.snapshot(), batches: batches)
        var messages = try RecordingMessages(path: cut)
        let result = try RecordingExport.run(&messages, to: cut + ".perfetto-trace", source: cut)
        guard case .truncated(_, 4, _) = result.stop else { return XCTFail("\(result.stop)") }
        facts.ending = result.stop.description
        try PerfettoChecker.check(cut + ".perfetto-trace", facts)
    }
}
