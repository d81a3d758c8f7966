import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// History on disk: events that leave memory go to the spill and every position from
/// the first event on stays what folding exactly that many events gives, through the
/// same API (graph, events, numbers, times).
final class HistorySpillTests: XCTestCase {
    /// 40 stages subscribing, then `rounds` batches of 700 values (texts longer than 8
    /// bytes, so they live beside the entries), a cancel, a failure and an owner.
    private func batches(rounds: Int) -> [EventBatch] {
        var first = BatchBuilder()
        first.chain(from: 1, subscriber: "Sink", ops: (0..<40).map { "Op\($0)" })
        var all = [first.build(sequence: UInt64(first.batch.events.count))]
        var sequence = UInt64(all[0].events.count)
        for round in 0..<rounds {
            var b = BatchBuilder(start: BatchBuilder.baseNanos + Int64(round + 1) * 1_000_000_000)
            for i in 0..<700 { b.value(NodeID((i + round) % 40 + 1), "round \(round) value \(i)") }
            if round == 3 { b.cancel(7, cause: .downstream) }
            if round == 5 { b.fail(9, "the network is down (round \(round))") }
            if round == 6 { b.add(.owned, 12) { $0.other = 900; $0.value = EventValue(text: "ViewModel owner 900") } }
            sequence += UInt64(b.batch.events.count)
            all.append(b.build(sequence: sequence))
        }
        return all
    }

    /// The reference: all of the events folded in memory, no history involved.
    private func reference(at position: Int, _ batches: [EventBatch]) -> Graph {
        var graph = Graph()
        var left = position
        for batch in batches {
            if left >= batch.events.count {
                graph.fold(batch)
                left -= batch.events.count
            } else {
                var part = batch
                part.events = Array(batch.events.prefix(left))
                graph.fold(part)
                break
            }
        }
        return graph
    }

    private func spilled(limit: Int, options: HistorySpill.Options = HistorySpill.Options(segmentEntries: 1_024))
        -> History {
        var history = History()
        history.limit = limit
        history.spill = options
        return history
    }

    private func assertSameGraph(_ shown: Graph, _ expected: Graph, at position: Int,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(shown.nodes.count, expected.nodes.count, "stages at \(position)", file: file, line: line)
        XCTAssertEqual(shown.roots, expected.roots, "roots at \(position)", file: file, line: line)
        for (id, node) in expected.nodes {
            XCTAssertEqual(shown[id]?.values, node.values, "values of #\(id) at \(position)", file: file, line: line)
            XCTAssertEqual(shown[id]?.status, node.status, "status of #\(id) at \(position)", file: file, line: line)
            XCTAssertEqual(shown[id]?.lastValue, node.lastValue, "last value of #\(id) at \(position)",
                           file: file, line: line)
            XCTAssertEqual(shown[id]?.operatorName, node.operatorName, "#\(id) at \(position)", file: file, line: line)
            XCTAssertEqual(shown[id]?.subscriber, node.subscriber, "#\(id) at \(position)", file: file, line: line)
        }
    }

    /// 21 times the in-memory limit: the first event is still reachable and every
    /// position is the fold of exactly that many events.
    func testTheFirstEventOfMoreThanTheLimitIsReachableAndExact() {
        var history = spilled(limit: 1_000)
        var live = Graph()
        let all = batches(rounds: 30)
        for batch in all { history.append(batch, folding: &live) }
        let total = all.reduce(0) { $0 + $1.events.count }
        XCTAssertEqual(history.end, total)
        XCTAssertEqual(history.start, 0, "nothing was evicted: it went to disk")
        XCTAssertGreaterThan(history.memoryStart, 19_000, "most events left memory")
        XCTAssertGreaterThan(history.spilledBytes, Int64(19_000 * 40))
        XCTAssertNil(history.spillFailure)
        XCTAssertEqual(history.firstID, 1)
        XCTAssertEqual(history.position(ofEvent: 1), 1)
        for position in [0, 1, 2, 40, 41, 500] + Array(stride(from: 0, through: total, by: 997)) + [total] {
            assertSameGraph(history.graph(at: position), reference(at: position, all), at: position)
        }
    }

    /// Events read back from disk are the events that were appended: texts (a value's, a
    /// failure's, an owner's), numbers, times and threads.
    func testSpilledEventsReadBackWhole() {
        var history = spilled(limit: 1_000)
        var live = Graph()
        let all = batches(rounds: 10)
        for batch in all { history.append(batch, folding: &live) }
        let events = all.flatMap(\.events)
        XCTAssertGreaterThan(history.memoryStart, 5_000)
        for (i, original) in events.enumerated() {
            guard let back = history.event(at: i + 1) else { return XCTFail("no event at \(i + 1)") }
            XCTAssertEqual(back.kind, original.kind, "kind at \(i + 1)")
            XCTAssertEqual(back.node, original.node, "node at \(i + 1)")
            XCTAssertEqual(back.time, original.time, "time at \(i + 1)")
            XCTAssertEqual(back.text, original.text, "text at \(i + 1)")
            XCTAssertEqual(back.other, original.other, "other stage at \(i + 1)")
            XCTAssertEqual(back.id, UInt64(i + 1), "number at \(i + 1)")
        }
        let failed = try? XCTUnwrap(events.firstIndex { $0.kind == .failed })
        XCTAssertEqual(history.event(at: (failed ?? 0) + 1)?.text, "the network is down (round 5)")
        XCTAssertEqual(history.event(numbered: 3)?.event.node, events[2].node)
        // Times are found by binary search over disk and memory alike.
        let second = all[1].events[0].time
        XCTAssertEqual(history.position(atOrAfter: second), all[0].events.count + 1)
        let back = history.events(endingAt: 2_000, count: 5, node: 3)
        XCTAssertEqual(back.count, 5)
        XCTAssertTrue(back.allSatisfy { $0.event.node == 3 && $0.position <= 2_000 })
    }

    /// A jump folds at most about ``History/spilledSpan`` events from a checkpoint, and
    /// checkpoints among the spilled events do not grow with the stride's count.
    func testCheckpointsOnDiskAreThinnedButJumpsStayShort() {
        var history = spilled(limit: 2_000)
        var live = Graph()
        let all = batches(rounds: 400)  // 280,000 values
        for batch in all { history.append(batch, folding: &live) }
        let positions = [0] + history.checkpointPositions + [history.end]
        let widest = zip(positions, positions.dropFirst()).map { $1 - $0 }.max() ?? 0
        XCTAssertLessThanOrEqual(widest, History.spilledSpan + History.checkpointStride)
        let onDisk = history.checkpointPositions.filter { $0 < history.memoryStart }.count
        XCTAssertLessThanOrEqual(onDisk, 2 * history.end / History.spilledSpan + 2,
                                 "\(onDisk) checkpoints among \(history.memoryStart) spilled events")
        for position in [1, 1_000, 123_457, history.memoryStart - 1, history.memoryStart + 5] {
            assertSameGraph(history.graph(at: position), reference(at: position, all), at: position)
        }
    }

    /// Past the disk budget the oldest segment goes: history starts later, exactly.
    func testTheDiskBudgetDropsTheOldestEventsExactly() {
        var history = spilled(limit: 1_000, options: HistorySpill.Options(budgetBytes: 200_000, segmentEntries: 1_024,
                                                                          segmentTextBytes: 4_096))
        var live = Graph()
        let all = batches(rounds: 30)
        for batch in all { history.append(batch, folding: &live) }
        XCTAssertGreaterThan(history.start, 0, "the budget evicted the oldest")
        XCTAssertEqual(history.start % 1_024, 0, "a segment at a time")
        XCTAssertLessThanOrEqual(history.spilledBytes, 200_000 + 1_024 * 40 + 4_096)
        XCTAssertEqual(history.firstID, UInt64(history.start + 1))
        for position in [history.start, history.start + 1, history.memoryStart - 1, history.end] {
            assertSameGraph(history.graph(at: position), reference(at: position, all), at: position)
        }
        XCTAssertEqual(history.event(at: history.start + 1)?.id, UInt64(history.start + 1))
        XCTAssertNil(history.event(at: history.start))
    }

    /// A copy that goes on appending after the original spilled more keeps a right
    /// history (from its own window on), and the original keeps all of its own.
    func testACopyThatDivergesStartsItsOwnSpill() {
        var history = spilled(limit: 1_000)
        var live = Graph()
        let all = batches(rounds: 12)
        for batch in all.prefix(6) { history.append(batch, folding: &live) }
        var copy = history
        var copyLive = live
        for batch in all.dropFirst(6) { history.append(batch, folding: &live) }
        for batch in all.dropFirst(6) { copy.append(batch, folding: &copyLive) }
        XCTAssertEqual(history.start, 0)
        for h in [history, copy] {
            for position in [h.start, h.start + 1, h.memoryStart, h.end] {
                assertSameGraph(h.graph(at: position), reference(at: position, all), at: position)
            }
        }
    }

    /// The description of a stage whose subscribe is on disk is there too, not in memory,
    /// and still learns where the stage was made when that comes later.
    func testStageDescriptionsGoToDiskWithTheirSubscribes() throws {
        var history = spilled(limit: 1_000)
        var live = Graph()
        let all = batches(rounds: 5)
        for batch in all { history.append(batch, folding: &live) }
        XCTAssertEqual(history.infos.count, 0, "all 40 subscribes are on disk, and their descriptions")
        XCTAssertEqual(history.nodeInfoCount, 40)
        XCTAssertEqual(history.info(of: 3)?.operatorName, live[3]?.operatorName)
        let here = BatchBuilder.at("Feed.swift", 88)
        history.append(EventBatch(locations: [LocatedStage(node: 1, location: here, frames: [here])],
                                  trailer: BatchTrailer(sequence: live.sequence)), folding: &live)
        XCTAssertEqual(history.info(of: 1)?.location, here)
        XCTAssertEqual(history.graph(at: 41)[1]?.location, here, "re-folded from before its subscribe")
        XCTAssertEqual(history.graph(at: 41)[1]?.frames, [here])
    }

    func testAStageDescriptionReadsBackWhole() {
        let place = SourceLocation(file: "/src/Feed.swift", line: 12, function: "Feed.start()", image: "App", offset: 77)
        let info = NodeInfo(id: 9, parent: 4, operatorName: "Map", publisherType: "Map<Just<Int>, String>",
                            subscriber: "Sink", thread: "main · ünïcode", createdNanos: -5, location: place,
                            frames: [place, SourceLocation(image: "libFoo.so", offset: 3)], madeFor: 12,
                            publisher: 0xDEAD, subjectSource: true, code: nil, builtBy: place)
        XCTAssertEqual(NodeInfoBytes.decode(NodeInfoBytes.encode(info)), info)
        let bare = NodeInfo(id: 1, operatorName: "", publisherType: "", subscriber: "", thread: "", createdNanos: 0)
        XCTAssertEqual(NodeInfoBytes.decode(NodeInfoBytes.encode(bare)), bare)
        XCTAssertNil(NodeInfoBytes.decode(Array(NodeInfoBytes.encode(info).dropLast(3))), "cut short: nothing")
    }

    /// `PIPESCOPE_HISTORY_DIR` and `PIPESCOPE_HISTORY_BUDGET_MB` choose where and how much.
    func testOptionsFromTheEnvironment() {
        let options = HistorySpill.Options.fromEnvironment(["PIPESCOPE_HISTORY_DIR": "/var/tmp",
                                                            "PIPESCOPE_HISTORY_BUDGET_MB": "300"])
        XCTAssertEqual(options.directory, "/var/tmp")
        XCTAssertEqual(options.budgetBytes, 300 << 20)
        XCTAssertEqual(HistorySpill.Options.fromEnvironment([:]).budgetBytes, 2 << 30)
    }

    /// A directory that cannot hold the files: the history says why and evicts as before.
    func testAnUnwritableDirectoryFallsBackToEvicting() {
        var history = spilled(limit: 1_000, options: HistorySpill.Options(directory: "/nonexistent/pipescope"))
        var live = Graph()
        let all = batches(rounds: 5)
        for batch in all { history.append(batch, folding: &live) }
        XCTAssertGreaterThan(history.start, 0)
        XCTAssertTrue(history.spillFailure?.contains("/nonexistent/pipescope") ?? false, "\(history.spillFailure ?? "")")
        let position = history.start + 3
        assertSameGraph(history.graph(at: position), reference(at: position, all), at: position)
    }
}
