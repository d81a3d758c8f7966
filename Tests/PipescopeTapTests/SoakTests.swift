import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeWire
import XCTest

/// Many pipelines created and torn down across threads, as a long-running program
/// does. CombineIdentifiers are addresses and are reused within microseconds; the tap
/// must still give every stage its own id and never mix one stage's events into another.
final class SoakTests: XCTestCase {
    func testHundredThousandPipelinesAcrossThreads() throws {
        let pipelines = 100_000
        let threads = 8
        let probe = Probe(bufferCapacity: 1 << 20)
        probe.enable()
        defer { probe.disable() }
        // Every event is checked as it is flushed and not kept, so the memory measured
        // below is the probe's, not the test's (800,000 events of 120 bytes).
        let checked = CheckedStream()
        let flusher = Flusher(probe: probe, onBatch: { checked.check($0) })
        let residentBefore = residentBytes()

        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in stride(from: thread, to: pipelines, by: threads) {
                let subject = PassthroughSubject<Int, Never>()
                let c = subject.map { $0 }.sink { _ in }
                subject.send(i)
                c.cancel()
            }
        }
        flusher.stop()
        let last = probe.flush()

        // Every event, checked as a stream: ids unique, nothing after a stage ended.
        checked.check(last)
        let checker = try checked.result()
        XCTAssertEqual(checker.subscribed, 2 * pipelines, "two stages per pipeline, each with its own id")
        XCTAssertEqual(checker.cancelled, pipelines, "one cancel per pipeline (its two stages share it)")
        XCTAssertEqual(checker.valuesPerStage.count, 2 * pipelines)
        XCTAssertTrue(checker.valuesPerStage.values.allSatisfy { $0 == 1 }, "no stage got another's value")
        XCTAssertEqual(checker.dropped, 0)
        XCTAssertEqual(probe.liveStageCount, 0, "no identity left mapped")

        // Each pipeline's two stages carry that pipeline's value and nobody else's.
        let graph = probe.graph
        for root in graph.roots {
            let sink = graph[root]!, source = graph[sink.children[0]]!
            XCTAssertEqual(sink.lastValue, source.lastValue)
        }

        // Retention bounds what the probe keeps: at most `maxEndedPipelines` ended
        // pipelines once pruned, however many came and went.
        probe.prune(now: .max / 2)
        XCTAssertEqual(probe.graph.nodes.count, 0, "everything ended and aged out")
        let growth = residentBytes() - residentBefore
        print("soak: resident memory grew \(growth >> 20) MiB")
        XCTAssertLessThan(growth, 256 << 20, "memory stayed bounded (grew \(growth >> 20) MiB)")
    }
}

/// A ``StreamChecker`` fed from the flushing thread: the first violation is kept.
final class CheckedStream: @unchecked Sendable {
    private let lock = NSLock()
    private var checker = StreamChecker()
    private var failure: Error?

    func check(_ batch: EventBatch) {
        lock.lock(); defer { lock.unlock() }
        guard failure == nil else { return }
        do { try checker.check(batch) } catch { failure = error }
    }

    /// The checker, or the first violation it found.
    func result() throws -> StreamChecker {
        lock.lock(); defer { lock.unlock() }
        if let failure { throw failure }
        return checker
    }
}

/// Follows an event stream and fails on anything a correct tap cannot produce.
struct StreamChecker {
    private(set) var subscribed = 0
    private(set) var cancelled = 0
    private(set) var dropped: UInt64 = 0
    private(set) var valuesPerStage: [NodeID: Int] = [:]
    private var seen = Set<NodeID>()
    private var ended = Set<NodeID>()
    private var sharers: [NodeID: [NodeID]] = [:]

    struct Violation: Error, CustomStringConvertible { let description: String }

    mutating func check(_ batch: EventBatch) throws {
        dropped = batch.trailer.dropped
        for event in batch.events {
            let id = event.node
            switch event.kind {
            case .subscribe:
                guard seen.insert(id).inserted else { throw Violation(description: "id \(id) subscribed twice") }
                subscribed += 1
            case .subscription:
                if event.other != id { sharers[event.other, default: []].append(id) }
            case .value:
                guard seen.contains(id), !ended.contains(id) else {
                    throw Violation(description: "value for \(seen.contains(id) ? "ended" : "unknown") stage \(id)")
                }
                valuesPerStage[id, default: 0] += 1
            case .cancelled:
                cancelled += 1
                for stage in [id] + (sharers[id] ?? []) { ended.insert(stage) }
            case .finished, .failed:
                ended.insert(id)
            default:
                guard seen.contains(id) else { throw Violation(description: "\(event.kind) for unknown stage \(id)") }
            }
        }
    }
}

/// The process's resident set size, from /proc.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
