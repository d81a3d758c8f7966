import Foundation
@testable import PipescopeGraph
@testable import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Checkpoints among the events on disk are on disk too (``SpilledCheckpoints``): a jump
/// into spilled history reads one back and folds on from it, and gets exactly the graph a
/// history kept wholly in memory gives, stage by stage and field by field (`==` on the
/// whole graph: times, a flatMap's answers, owners, mirrors, drop counts).
final class SpilledCheckpointTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A recording's snapshot and batches, decoded as a replay decodes them.
    private func messages(_ name: String) throws -> (snapshot: GraphSnapshot, batches: [EventBatch]) {
        var reader = try RecordingReader(path: Self.fixtures.appendingPathComponent(name).path)
        var stream = WireStreamReader()
        var snapshot: GraphSnapshot?
        var batches: [EventBatch] = []
        while let message = try reader.next() {
            switch message.body {
            case .snapshot(let s)?: if snapshot == nil { snapshot = try stream.snapshot(s) }
            case .packed(let p)?: batches.append(try stream.batch(p))
            default: break
            }
        }
        return (try XCTUnwrap(snapshot), batches)
    }

    /// Two histories of the same events: one spilling with checkpoints on disk every few
    /// hundred events (``History/checkpointStride`` at the closest), one wholly in memory.
    private func histories(_ snapshot: GraphSnapshot, _ batches: [EventBatch], limit: Int, span: Int)
        -> (spilled: History, memory: History) {
        var start = Graph()
        start.load(snapshot)
        var spilled = History()
        spilled.limit = limit
        spilled.diskCheckpointSpan = span
        spilled.spill = HistorySpill.Options(segmentEntries: 1_024)
        spilled.reset(to: start, recent: snapshot.recent)
        var memory = History()
        memory.limit = 10_000_000
        memory.reset(to: start, recent: snapshot.recent)
        var live = start, live2 = start
        for batch in batches {
            spilled.append(batch, folding: &live)
            memory.append(batch, folding: &live2)
        }
        return (spilled, memory)
    }

    /// The demo's stories (flatMaps, owners, timers, failures, 2,320 events): every 7th
    /// position and every checkpoint's neighbours equal the in-memory history's graph.
    func testAJumpIntoSpilledHistoryEqualsTheInMemoryFold() throws {
        let (snapshot, batches) = try messages("demo-stories.pipescope")
        let (spilled, memory) = histories(snapshot, batches, limit: 300, span: 200)
        XCTAssertEqual(spilled.end, memory.end)
        XCTAssertGreaterThan(spilled.memoryStart, 1_500, "most events on disk")
        // One every 512 events at the closest (``History/checkpointStride``).
        XCTAssertGreaterThanOrEqual(spilled.spilledCheckpoints.count, 2, "checkpoints on disk")
        let inMemoryBelow = spilled.checkpoints.filter { $0.position < spilled.memoryStart }.count
        XCTAssertLessThanOrEqual(inMemoryBelow, 1, "at most the newest below the window stays in memory")
        XCTAssertEqual(spilled.checkpointPositions.filter { $0 < spilled.memoryStart }.count,
                       spilled.spilledCheckpoints.count + inMemoryBelow)
        var positions = Set(stride(from: 0, through: spilled.end, by: 7))
        for p in spilled.checkpointPositions { positions.formUnion([p - 1, p, p + 1]) }
        for position in positions.sorted() where position >= 0 && position <= spilled.end {
            let shown = spilled.graph(at: position), expected = memory.graph(at: position)
            XCTAssertEqual(shown, expected, "the graph at \(position)")
            if shown != expected { return }
        }
        XCTAssertNil(spilled.spillFailure)
    }

    /// Synthetic: 40 stages and 70,000 values, texts beside them, a cancel, a failure and
    /// an owner; checkpoints on disk every 2,000 events or so.
    func testManyCheckpointsOnDiskStayExact() {
        var first = BatchBuilder()
        first.chain(from: 1, subscriber: "Sink", ops: (0..<40).map { "Op\($0)" })
        var batches = [first.build(sequence: UInt64(first.batch.events.count))]
        var sequence = UInt64(batches[0].events.count)
        for round in 0..<100 {
            var b = BatchBuilder(start: BatchBuilder.baseNanos + Int64(round + 1) * 1_000_000_000)
            for i in 0..<700 { b.value(NodeID((i + round) % 40 + 1), "round \(round) value \(i)") }
            if round == 30 { b.cancel(7, cause: .downstream) }
            if round == 50 { b.fail(9, "the network is down") }
            if round == 60 { b.add(.owned, 12) { $0.other = 900; $0.value = EventValue(text: "ViewModel") } }
            sequence += UInt64(b.batch.events.count)
            batches.append(b.build(sequence: sequence))
        }
        let (spilled, memory) = histories(GraphSnapshot(), batches, limit: 2_000, span: 2_000)
        XCTAssertGreaterThanOrEqual(spilled.spilledCheckpoints.count, 30)
        for position in stride(from: 0, through: spilled.end, by: 1_013) + [spilled.memoryStart, spilled.end] {
            XCTAssertEqual(spilled.graph(at: position), memory.graph(at: position), "the graph at \(position)")
        }
    }

    /// A location learnt after the checkpoints holding its stage went to disk is the
    /// stage's in them too, read back: as it is in the in-memory history's.
    func testALateLocationReachesCheckpointsOnDisk() throws {
        let (snapshot, batches) = try messages("demo-stories.pipescope")
        var (spilled, memory) = histories(snapshot, batches, limit: 300, span: 200)
        let stage = try XCTUnwrap(spilled.graph(at: spilled.spilledCheckpoints[0].position).nodes.keys.min())
        let here = BatchBuilder.at("Late.swift", 7)
        var late = EventBatch(locations: [LocatedStage(node: stage, location: here)],
                              trailer: BatchTrailer(sequence: memory.graph(at: memory.end).sequence))
        late.codes = [StageCode(node: stage, code: here)]
        var live = spilled.graph(at: spilled.end), live2 = live
        spilled.append(late, folding: &live)
        memory.append(late, folding: &live2)
        XCTAssertFalse(spilled.lateFixes.isEmpty)
        for record in spilled.spilledCheckpoints {
            let shown = spilled.graph(at: record.position + 1)
            XCTAssertEqual(shown, memory.graph(at: record.position + 1), "after \(record.position)")
            if shown[stage] != nil { XCTAssertEqual(shown[stage]?.location, here) }
        }
    }

    /// Every graph of a real recording reads back equal from its bytes; cut short, it
    /// reads as nothing.
    func testAGraphReadsBackFromItsBytes() throws {
        let (snapshot, batches) = try messages("demo-stories.pipescope")
        var graph = Graph()
        graph.load(snapshot)
        var checked = 0
        for batch in batches {
            graph.fold(batch)
            let bytes = GraphBytes.encode(graph)
            XCTAssertEqual(GraphBytes.decode(bytes), graph)
            XCTAssertNil(GraphBytes.decode(Array(bytes.dropLast())))
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
        XCTAssertGreaterThan(graph.nodes.values.filter { $0.innerAnswers != nil }.count, 0, "a flatMap's answers")
        XCTAssertGreaterThan(graph.nodes.values.filter { $0.times != nil }.count, 0, "delivery times")
        // And what a busier program's graph holds besides: a stage number never seen begin
        // (its subscribe lost) and pauses, one over and one under way.
        var gate = EventBatch()
        gate.trailer.gate = GateState(paused: true, pausedSinceNanos: 2_000,
                                      endedPause: PauseInterval(fromNanos: 500, toNanos: 900))
        graph.fold(gate)
        var skip = BatchBuilder()
        let next = (graph.nodes.keys.max() ?? 0) + 5
        skip.subscribe(next, op: "Just", subscriber: "Sink")
        graph.fold(skip.build(sequence: graph.sequence + 1))
        XCTAssertEqual(graph.pauses.spans.count, 2)
        XCTAssertFalse(graph.lostStarts.gaps.isEmpty)
        XCTAssertEqual(GraphBytes.decode(GraphBytes.encode(graph)), graph)
    }
}
