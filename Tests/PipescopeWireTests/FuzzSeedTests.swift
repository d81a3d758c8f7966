import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// The fuzzers' seeds for version 4's columns (Fuzz/corpus/packed-v4-stream, and
/// recording-v4 for FuzzRecording): a Welcome, a snapshot and batches that use every column
/// version 4 adds (value runs and each scalar column, kinds, causes and threads as runs, sparse
/// timings), so mutations start from inputs that reach them. Written by this test with
/// PIPESCOPE_WRITE_FUZZ_SEEDS=1; otherwise it checks that the committed seeds still
/// decode and still carry those columns.
final class FuzzSeedTests: XCTestCase {
    private static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    private static func frames() -> [UInt8] {
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = ProtocolVersion.current
        welcome.welcome.processName = "fuzz-seed"
        welcome.welcome.pid = 4
        var writer = WireStreamWriter()
        var bytes = welcome.framed() + writer.message(GraphSnapshot()).framed()
        var busy = BatchBuilder(start: 1_700_000_000_000_000_000, step: 1_000)
        for i in 0..<40 {
            busy.add(.value, 3) {
                $0.value = .int(Int64(i))
                $0.thread = "main"
                if i % 10 == 3 { $0.selfNanos = 700; $0.totalNanos = 900 }
            }
        }
        for batch in [ScalarColumnTests.mixedBatch(), busy.build(sequence: 200)] {
            bytes += writer.message(batch).framed()
        }
        return bytes
    }

    func testTheSeedsCarryEveryVersionFourColumn() throws {
        let stream = Self.corpus.appendingPathComponent("packed-v4-stream")
        let recording = Self.corpus.appendingPathComponent("recording-v4")
        if ProcessInfo.processInfo.environment["PIPESCOPE_WRITE_FUZZ_SEEDS"] == "1" {
            try Data(Self.frames()).write(to: stream)
            try Data(Self.frames() + RecordingFormat.endMark(reason: "the seed ends")).write(to: recording)
        }
        for seed in [stream, recording] {
            let contents = try RecordingFormat.read(RecordingFormat.magic + Array(try Data(contentsOf: seed)))
            let packed = contents.messages.compactMap { m -> WirePackedBatch? in
                if case .packed(let p)? = m.body { return p }
                return nil
            }
            XCTAssertEqual(packed.count, 2, seed.lastPathComponent)
            var reader = WireStreamReader()
            for p in packed { XCTAssertNoThrow(try reader.batch(p), seed.lastPathComponent) }
            XCTAssertFalse(packed.contains { $0.valueRuns.isEmpty })
            XCTAssertTrue(packed.contains { !$0.intDeltas.isEmpty && !$0.uints.isEmpty && !$0.doubles.isEmpty
                && !$0.floats.isEmpty && !$0.bools.isEmpty })
            XCTAssertTrue(packed.contains { !$0.kindRuns.isEmpty && !$0.threadRuns.isEmpty && !$0.timedValues.isEmpty })
            XCTAssertTrue(packed.contains { !$0.eventThreads.isEmpty }, "a plain column beside the runs")
        }
    }

    /// A Welcome, then a snapshot of twelve stages cut into parts of about 300 bytes
    /// (protocol version 5's `continues`), then a batch: so mutations start from parts
    /// that join, and reach the joiner's checks without finding `continues` by chance.
    private static func snapshotInParts() -> (frames: [[UInt8]], parts: Int) {
        var welcome = ServerMessage()
        welcome.welcome.protocolVersion = ProtocolVersion.current
        welcome.welcome.processName = "fuzz-seed"
        welcome.welcome.pid = 5
        var writer = WireStreamWriter()
        writer.snapshotPartBytes = 300
        var b = BatchBuilder(start: 1_700_000_000_000_000_000, step: 1_000)
        for chain in 0..<4 {
            b.chain(from: UInt64(chain * 3 + 1), subscriber: "Sink", ops: ["Map", "Filter", "PassthroughSubject"])
        }
        var graph = Graph()
        graph.fold(b.build())
        var snapshot = graph.snapshot()
        snapshot.sequence = 12
        let parts = writer.frames(snapshot)
        var values = BatchBuilder(start: 1_700_000_001_000_000_000, step: 1_000)
        for i in 0..<5 { values.add(.value, 1) { $0.value = .int(Int64(i)); $0.thread = "main" } }
        return ([welcome.framed()] + parts + [writer.message(values.build(sequence: 17)).framed()], parts.count)
    }

    func testASeedCarriesASnapshotInParts() throws {
        let seed = Self.corpus.appendingPathComponent("snapshot-parts")
        let (frames, parts) = Self.snapshotInParts()
        if ProcessInfo.processInfo.environment["PIPESCOPE_WRITE_FUZZ_SEEDS"] == "1" {
            try Data(frames.flatMap { $0 }).write(to: seed)
        }
        XCTAssertGreaterThan(parts, 3)
        let contents = try RecordingFormat.read(RecordingFormat.magic + Array(try Data(contentsOf: seed)))
        // The parts read back as one snapshot, between the Welcome and the batch.
        XCTAssertEqual(contents.messages.count, 3)
        var reader = WireStreamReader()
        let snapshot = try reader.snapshot(contents.messages[1].snapshot)
        XCTAssertEqual(snapshot.nodes.count, 12)
        XCTAssertEqual(try reader.batch(contents.messages[2].packed).events.count, 5)
        let raw = try Data(contentsOf: seed)
        XCTAssertEqual(raw.count, frames.reduce(0) { $0 + $1.count }, "the seed is the frames as written")
    }
}
