@preconcurrency import OpenCombine
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeLiveTestSupport
import XCTest

/// An ended stage stays findable for the events that come after its end (a value after
/// the completion, a value racing a cancel) while it is among the last
/// ``StageIndex/retiredCapacity`` stages to end, and no longer: the tap's memory does not
/// grow with the stages a program ends.
final class RetiredStageTests: XCTestCase {
    private var probe: Probe!

    override func setUp() {
        probe = Probe(bufferCapacity: 1 << 20)
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
    }

    /// A publisher that keeps the subscriber it is given, so the test says when it gets a
    /// value or its end, and can give it a value after its end.
    private final class Manual: Publisher, @unchecked Sendable {
        typealias Output = Int
        typealias Failure = Never
        private var subscriber: AnySubscriber<Int, Never>?
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            self.subscriber = AnySubscriber(subscriber)
            subscriber.receive(subscription: Subscriptions.empty)
        }
        func send(_ value: Int) { _ = subscriber?.receive(value) }
        func finish() { subscriber?.receive(completion: .finished) }
    }

    /// Ends `count` stages: each value through a flatMap subscribes an inner publisher
    /// that finishes at once.
    private func endStages(_ count: Int) {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.flatMap { Just($0) }.sink { _ in }
        for i in 0..<count { subject.send(i) }
        c.cancel()
        probe.flush()
    }

    private var retired: Int { probe.registry.state.withLockedValue { $0.stages.retiredCount } }

    /// The sink of a `Manual` publisher, and the publisher.
    private func manualSink() -> (Manual, NodeID, AnyCancellable) {
        let manual = Manual()
        let c = manual.sink { _ in }
        probe.flush()
        let sink = probe.graph.nodes.values.first { $0.parent == nil }!.id
        return (manual, sink, c)
    }

    func testAValueAfterTheEndCountsOnItsStageWhileTheLatestEndsAreKept() {
        let (manual, sink, c) = manualSink()
        manual.send(1)
        manual.finish()
        // Fewer stages end after it than the tap keeps: it is still found.
        endStages(StageIndex.retiredCapacity - 100)
        manual.send(2)
        probe.flush()
        XCTAssertEqual(probe.graph[sink]?.values, 2, "the late value is its stage's")
        XCTAssertEqual(probe.graph[sink]?.afterEnd, 1, "and counted after its end")
        XCTAssertEqual(probe.graph[sink]?.status, .finished)
        c.cancel()
    }

    func testEndedStagesAreForgottenOnceMoreThanTheWindowEndAfterThemSoTheTapDoesNotGrow() {
        let (manual, sink, c) = manualSink()
        manual.finish()
        var most = 0
        for _ in 0..<6 {
            endStages(StageIndex.retiredCapacity / 2)
            most = max(most, retired)
        }
        // (A few keys ended twice: a round's flatMap and sink may take the addresses of the
        // last round's, and their key's newest end replaces the older.)
        XCTAssertGreaterThan(retired, StageIndex.retiredCapacity - 16, "the latest are kept")
        XCTAssertLessThanOrEqual(most, StageIndex.retiredCapacity, "and no more")
        // 12,288 stages ended after it: it is gone, and a value after its end has no
        // stage to count on.
        manual.send(3)
        probe.flush()
        XCTAssertEqual(probe.graph[sink]?.values, 0)
        XCTAssertEqual(probe.graph[sink]?.afterEnd, 0)
        c.cancel()
    }

    /// A new stage under an ended stage's key is the one a delivery to that key reaches.
    func testANewStageUnderAnEndedStagesKeyTakesItsDeliveries() {
        let manual = Manual()
        let subscriber = CountingSubscriber(initial: 10, perValue: 0)
        manual.subscribe(subscriber)
        manual.finish()
        probe.flush()
        let first = probe.graph.nodes.values.filter { $0.parent == nil }.map(\.id)
        // The same subscriber (the same identity and type) subscribed again.
        let again = Manual()
        again.subscribe(subscriber)
        again.send(5)
        probe.flush()
        let roots = probe.graph.nodes.values.filter { $0.parent == nil }.sorted { $0.id < $1.id }
        XCTAssertEqual(roots.count, 2)
        XCTAssertEqual(roots.map(\.id).first, first.first)
        XCTAssertEqual(roots.map(\.values), [0, 1], "the value is the new stage's")
        XCTAssertEqual(roots.map(\.afterEnd), [0, 0])
    }
}

/// ``IdentityTable``'s deletions (entries shifted back, no tombstones), checked against a
/// `Dictionary` under random inserts and removals, at the load (up to 3/4) where runs are
/// long and wrap round the end of the slots.
final class IdentityTableTests: XCTestCase {
    func testItAgreesWithADictionaryThroughInsertsAndRemovals() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<24 {
            var table = IdentityTable<UInt64, Int>(capacity: 16)
            var model: [UInt64: Int] = [:]
            // Few distinct keys: inserts replace, removals find what is there.
            let keys = UInt64(8 + round * 4)
            for step in 0..<2_000 {
                let key = UInt64.random(in: 0..<keys, using: &generator)
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<5:
                    table[key] = step
                    model[key] = step
                case 5..<8:
                    XCTAssertEqual(table.removeValue(forKey: key), model.removeValue(forKey: key))
                default:
                    table[key] = nil
                    model[key] = nil
                }
                XCTAssertEqual(table.count, model.count)
                for k in 0..<keys where table[k] != model[k] {
                    XCTFail("round \(round), step \(step): key \(k) is \(String(describing: table[k])), not \(String(describing: model[k]))")
                    return
                }
            }
        }
    }
}
