import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Pipelines on many threads at once, with the probe flushing concurrently as its
/// server thread does. Counts must stay exact and the graph consistent.
final class ConcurrencyTests: XCTestCase {
    private var probe: Probe!
    private var flusher: Flusher!

    override func setUp() {
        probe = Probe(bufferCapacity: 1 << 20)
        probe.enable()
        flusher = Flusher(probe: probe)
    }

    override func tearDown() {
        flusher.stop()
        probe.disable()
    }

    private func finalGraph() -> Graph {
        flusher.stop()
        probe.flush()
        return probe.graph
    }

    func testSendsFromEightThreadsAreCountedExactly() {
        let subject = PassthroughSubject<Int, Never>()
        let received = Counter()
        let c = subject.map { $0 * 2 }.filter { $0 % 4 == 0 }.sink { _ in received.increment() }
        let perThread = 5_000
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<perThread { subject.send(thread * perThread + i) }
        }
        let graph = finalGraph()
        XCTAssertEqual(graph.dropped, 0)
        XCTAssertEqual(GraphDump.lines(graph), [
            "Filter<-Sink active req=unlimited values=20000",
            "  Map<-Filter active req=unlimited values=40000",
            "    PassthroughSubject<-Map active req=unlimited values=40000",
        ])
        XCTAssertEqual(received.value, 20_000)
        c.cancel()
    }

    func testReceiveOnHopsAcrossQueues() {
        let subject = PassthroughSubject<Int, Never>()
        let first = DispatchQueue(label: "pipescope.test.hop1")
        let second = DispatchQueue(label: "pipescope.test.hop2")
        let done = expectation(description: "all values")
        let total = 8 * 2_000
        let received = Counter()
        let c = subject.receive(on: first.ocombine).map { $0 + 1 }.receive(on: second.ocombine).sink { _ in
            if received.increment() == total { done.fulfill() }
        }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for i in 0..<2_000 { subject.send(i) }
        }
        wait(for: [done], timeout: 60)
        let graph = finalGraph()
        XCTAssertEqual(GraphDump.lines(graph), [
            "ReceiveOn<-Sink active req=unlimited values=16000",
            "  Map<-ReceiveOn active req=unlimited values=16000",
            "    ReceiveOn<-Map active req=unlimited values=16000",
            "      PassthroughSubject<-ReceiveOn active req=unlimited values=16000",
        ])
        let threads = Set(graph.nodes.values.map(\.thread))
        XCTAssertEqual(threads, ["main"], "all four stages were subscribed on the test's thread")
        c.cancel()
    }

    func testCancelsRacingValuesLeaveAConsistentGraph() {
        let pipelines = 400
        let queue = DispatchQueue(label: "pipescope.test.race", attributes: .concurrent)
        let group = DispatchGroup()
        for n in 0..<pipelines {
            let subject = PassthroughSubject<Int, Never>()
            let c = subject.map { $0 }.sink { _ in }
            let box = CancellableBox(c)
            queue.async(group: group) { for i in 0..<50 { subject.send(n * 100 + i) } }
            queue.async(group: group) { box.cancel() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        let graph = finalGraph()
        XCTAssertEqual(graph.dropped, 0)
        XCTAssertEqual(graph.roots.count, pipelines)
        XCTAssertEqual(probe.liveStageCount, 0, "every stage ended, so the tap forgot every identity")
        for root in graph.roots {
            let sink = graph[root]!
            let source = graph[sink.children.first!]!
            XCTAssertEqual(sink.children.count, 1)
            XCTAssertEqual(source.parent, root)
            XCTAssertEqual(sink.status, .cancelled)
            XCTAssertEqual(source.status, .cancelled)
            XCTAssertEqual(sink.values, source.values, "map passes every value it gets")
            XCTAssertLessThanOrEqual(sink.values, 50)
        }
    }

    /// Two threads flushing at once (a test's own flush beside the server's, or a caller
    /// of the public `flush()` beside the event loop) fold in the order the events were
    /// buffered: a stage's subscribe is folded before its values, wherever the two
    /// flushes split them, so no value is lost for a stage "not yet known".
    func testFlushesOnTwoThreadsAtOnceLoseNoValue() {
        let second = Flusher(probe: probe, intervalMicros: 0)
        defer { second.stop() }
        let subject = PassthroughSubject<Int, Never>()
        var keep: [AnyCancellable] = []
        let pipelines = 300
        for i in 0..<pipelines {
            subject.map { $0 &+ i }.sink { _ in }.store(in: &keep)
            // A value right behind each subscribe: a flush that takes the subscribe and
            // one that takes the value race to fold.
            subject.send(i)
        }
        second.stop()
        let graph = finalGraph()
        XCTAssertEqual(graph.dropped, 0)
        let maps = graph.nodes.values.filter { $0.operatorName == "Map" }
        XCTAssertEqual(maps.count, pipelines)
        // The pipeline made i-th got every value sent from then on.
        let expected = (0..<pipelines).reduce(0) { $0 + pipelines - $1 }
        XCTAssertEqual(maps.reduce(0) { $0 + $1.values }, expected, "every value, on every stage")
        keep.removeAll()
    }
}

/// Flushes a probe continuously on its own thread, as the server does every 25 ms.
final class Flusher: @unchecked Sendable {
    private let probe: Probe
    private let condition = NSCondition()
    private var running = true
    private var finished = false
    private let interval: UInt32

    /// Every batch flushed, in order, when `keepBatches` is set.
    private(set) var batches: [EventBatchBox] = []
    private let keepBatches: Bool
    /// Called with every batch, in order, on the flushing thread.
    private let onBatch: (@Sendable (EventBatch) -> Void)?

    init(probe: Probe, intervalMicros: UInt32 = 1_000, keepBatches: Bool = false,
         onBatch: (@Sendable (EventBatch) -> Void)? = nil) {
        self.probe = probe
        self.interval = intervalMicros
        self.keepBatches = keepBatches
        self.onBatch = onBatch
        let thread = Thread { [self] in loop() }
        thread.name = "pipescope.test.flusher"
        thread.start()
    }

    private func loop() {
        while isRunning {
            let batch = probe.flush()
            if keepBatches { record(batch) }
            onBatch?(batch)
            usleep(interval)
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private var isRunning: Bool {
        condition.lock(); defer { condition.unlock() }
        return running
    }

    private func record(_ batch: EventBatch) {
        condition.lock(); defer { condition.unlock() }
        batches.append(EventBatchBox(batch: batch))
    }

    /// Stops flushing and waits for the thread; safe to call twice.
    func stop() {
        condition.lock()
        running = false
        while !finished { condition.wait() }
        condition.unlock()
    }
}

struct EventBatchBox: @unchecked Sendable { let batch: EventBatch }

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    @discardableResult func increment() -> Int {
        lock.lock(); defer { lock.unlock() }
        count += 1
        return count
    }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

final class CancellableBox: @unchecked Sendable {
    private let cancellable: AnyCancellable
    init(_ c: AnyCancellable) { cancellable = c }
    func cancel() { cancellable.cancel() }
}
