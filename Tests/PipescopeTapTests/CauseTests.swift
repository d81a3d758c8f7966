import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// What the tap records as each event's cause, its thread and its delivery's time, on
/// real OpenCombine pipelines.
final class CauseTests: XCTestCase {
    private var probe: Probe!
    /// Every event flushed so far, in order.
    private var events: [StageEvent] = []

    override func setUp() {
        probe = Probe()
        probe.enable()
        events = []
    }

    override func tearDown() {
        probe.disable()
        probe = nil
    }

    private func flush() {
        events += probe.flush().events
    }

    private func stage(_ op: String) throws -> NodeID {
        try XCTUnwrap(probe.graph.nodes.values.filter { $0.operatorName == op }.map(\.id).min(), "no \(op)")
    }

    private func event(_ id: EventID) -> StageEvent? {
        events.first { $0.id == id }
    }

    /// The values of stage `op`, oldest first.
    private func values(of op: String) throws -> [StageEvent] {
        let id = try stage(op)
        return events.filter { $0.kind == .value && $0.node == id }
    }

    /// The chain of causes from `event` back to its origin: "Filter 46 ← Map 46 ← …".
    private func chain(_ start: StageEvent) -> String {
        var hops: [String] = []
        var current: StageEvent? = start
        while let e = current {
            let op = probe.graph[e.node]?.operatorName ?? "#\(e.node)"
            hops.append(e.kind == .value ? "\(op) \(e.text)" : "\(op) \(e.kind)")
            current = e.causedBy == 0 ? nil : event(e.causedBy)
            if e.causedBy != 0, current == nil { hops.append("(#\(e.causedBy) not found)") }
        }
        return hops.joined(separator: " ← ")
    }

    func testEventsAreNumberedInOrderAcrossFlushes() {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 + 1 }.sink { _ in }
        subject.send(1)
        flush()
        subject.send(2)
        flush()
        XCTAssertGreaterThan(events.count, 0)
        XCTAssertEqual(events.map(\.id), Array(stride(from: 1, through: EventID(events.count), by: 1)))
        XCTAssertEqual(probe.graph.sequence, EventID(events.count))
        c.cancel()
    }

    func testMapAndFilterOnOneThread() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.filter { $0 > 10 }.sink { _ in }
        subject.send(23)
        subject.send(1)
        flush()
        let filtered = try values(of: "Filter")
        XCTAssertEqual(filtered.map(\.text), ["46"])
        XCTAssertEqual(chain(filtered[0]), "Filter 46 ← Map 46 ← PassthroughSubject 23")
        let sent = try values(of: "PassthroughSubject")
        XCTAssertEqual(sent.map(\.causedBy), [0, 0], "a send from a quiet thread causes itself")
        XCTAssertEqual(Set(events.filter { $0.kind.payload.caused }.map(\.thread)), ["main"])
        c.cancel()
    }

    func testAValueSentFromAnotherPipelinesSinkIsCausedByThatDelivery() throws {
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<String, Never>()
        let a = second.sink { _ in }
        let b = first.map { $0 + 1 }.sink { second.send("got \($0)") }
        first.send(1)
        flush()
        let forwarded = try XCTUnwrap(events.first { $0.kind == .value && $0.text.contains("got 2") },
                                      "\(events.filter { $0.kind == .value }.map(\.text))")
        XCTAssertEqual(chain(forwarded), "PassthroughSubject \(forwarded.text) ← Map 2 ← PassthroughSubject 1")
        a.cancel()
        b.cancel()
    }

    func testReceiveOnLinksEachOutputToItsInputInOrder() throws {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "cause-test")
        let done = expectation(description: "three values")
        var seen = 0
        let c = subject.receive(on: queue.ocombine).map { $0 * 10 }.sink { _ in
            seen += 1
            if seen == 3 { done.fulfill() }
        }
        queue.suspend()
        for i in 1...3 { subject.send(i) }
        queue.resume()
        wait(for: [done], timeout: 10)
        flush()
        let outputs = try values(of: "Map")
        XCTAssertEqual(outputs.map(chain), [
            "Map 10 ← ReceiveOn 1 ← PassthroughSubject 1",
            "Map 20 ← ReceiveOn 2 ← PassthroughSubject 2",
            "Map 30 ← ReceiveOn 3 ← PassthroughSubject 3",
        ])
        let hop = try values(of: "ReceiveOn")
        XCTAssertEqual(Set(hop.map(\.thread)).count, 1)
        XCTAssertNotEqual(hop.first?.thread, "main", "delivered on the queue's thread")
        XCTAssertEqual(try values(of: "PassthroughSubject").map(\.thread), ["main", "main", "main"])
        c.cancel()
    }

    func testFlatMapInnersChainBackToTheOuterValue() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.flatMap { Just($0 * 2) }.sink { _ in }
        subject.send(4)
        flush()
        let out = try values(of: "FlatMap")
        XCTAssertEqual(out.map(chain), ["FlatMap 8 ← Just 8 ← PassthroughSubject 4"])
        c.cancel()
    }

    func testDebounceLinksItsOutputToTheLastInput() throws {
        let subject = PassthroughSubject<Int, Never>()
        let scheduler = ManualScheduler()
        let c = subject.debounce(for: .nanoseconds(100), scheduler: scheduler).sink { _ in }
        for i in 1...3 { subject.send(i) }
        scheduler.advance(by: .nanoseconds(200))
        flush()
        let out = try values(of: "Debounce")
        XCTAssertEqual(out.map(chain), ["Debounce 3 ← PassthroughSubject 3"])
        c.cancel()
    }

    func testCollectLinksItsOutputToTheInputThatCompletedIt() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.collect(3).sink { _ in }
        for i in 1...4 { subject.send(i) }
        flush()
        let out = try values(of: "CollectByCount")
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(chain(out[0]).components(separatedBy: " ← ").last, "PassthroughSubject 3")
        c.cancel()
    }

    func testCompletionsChainUpstream() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 }.filter { _ in true }.sink { _ in }
        subject.send(completion: .finished)
        flush()
        let finished = try XCTUnwrap(events.first { $0.kind == .finished && $0.node == (try? stage("Filter")) })
        XCTAssertEqual(chain(finished), "Filter finished ← Map finished ← PassthroughSubject finished")
        c.cancel()
    }

    func testUpstreamCancelsChainBackToTheCancelThatStartedThem() throws {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "cancel-chain")
        let c = subject.receive(on: queue.ocombine).map { $0 }.sink { _ in }
        c.cancel()
        flush()
        let cancels = events.filter { $0.kind == .cancelled }
        XCTAssertGreaterThanOrEqual(cancels.count, 2, "the receive(on:) holds a subscription of its own")
        let first = try XCTUnwrap(cancels.first)
        XCTAssertEqual(first.causedBy, 0, "cancelling an AnyCancellable on a quiet thread is an origin")
        for later in cancels.dropFirst() {
            XCTAssertEqual(chain(later).components(separatedBy: " ← ").last,
                           "\(probe.graph[first.node]!.operatorName) cancelled")
        }
    }

    func testAnInspectorCancelCausesTheCancelsItSetsOff() throws {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "inspector-cancel")
        let c = subject.receive(on: queue.ocombine).map { $0 }.sink { _ in }
        flush()
        let map = try stage("Map")
        guard case .subscription(let subscription, _, _, let event) = probe.registry.cancelFromInspector(node: map) else {
            return XCTFail("the Map's subscription could not be cancelled")
        }
        ThreadFrames.current.cancelling(as: event) { subscription.cancel() }
        flush()
        let cancels = events.filter { $0.kind == .cancelled }
        let byInspector = try XCTUnwrap(cancels.first { $0.cause == .inspector })
        XCTAssertEqual(byInspector.id, event)
        let upstream = cancels.filter { $0.id != event }
        XCTAssertFalse(upstream.isEmpty)
        XCTAssertTrue(upstream.allSatisfy { $0.causedBy == event }, "\(upstream.map { chain($0) })")
        c.cancel()
    }

    // MARK: - Time

    /// The map sleeps 50 ms a value: its own time holds every sleep (a sleep lasts at
    /// least that long, however busy the machine), and the filter's own time holds none
    /// of them. The filter's median is compared with half the sleep, a margin no
    /// scheduling delay on a shared machine eats for three deliveries of five.
    func testSelfTimeSeparatesAnExpensiveMapFromACheapFilter() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { value -> Int in
            usleep(50_000)
            return value
        }.filter { $0 >= 0 }.sink { _ in }
        for i in 1...5 { subject.send(i) }
        flush()
        let map = try XCTUnwrap(probe.graph[try stage("Map")]?.times)
        let filter = try XCTUnwrap(probe.graph[try stage("Filter")]?.times)
        XCTAssertEqual(map.own.count, 5)
        XCTAssertEqual(filter.own.count, 5)
        XCTAssertGreaterThanOrEqual(map.own.total, 5 * 50_000_000, "the map's closure sleeps 50 ms a value")
        XCTAssertGreaterThanOrEqual(map.own.max, 50_000_000)
        XCTAssertLessThan(filter.own.p50, 25_000_000, "the filter's own time holds none of the map's sleep")
        XCTAssertGreaterThanOrEqual(map.withDownstream.total, map.own.total)
        XCTAssertEqual(filter.sink.count, 5, "the root's sink is timed too")
        XCTAssertNil(probe.graph[try stage("PassthroughSubject")]?.times, "a source receives no values")
        c.cancel()
    }

    func testADeliveryThatOutlivesItsBatchSendsItsTimeLater() throws {
        let subject = PassthroughSubject<Int, Never>()
        let probe = self.probe!
        var flushedInside: [StageEvent] = []
        let c = subject.sink { _ in
            flushedInside += probe.flush().events
            usleep(1_000)
        }
        subject.send(1)
        flush()
        let value = try XCTUnwrap(flushedInside.first { $0.kind == .value })
        XCTAssertEqual(value.totalNanos, 0, "it went out before its delivery ended")
        let late = try XCTUnwrap(events.first { $0.kind == .delivered })
        XCTAssertEqual(late.causedBy, value.id)
        XCTAssertGreaterThan(late.totalNanos, 900_000)
        XCTAssertEqual(probe.graph[value.node]?.times?.sink.count, 1)
        c.cancel()
    }
}
