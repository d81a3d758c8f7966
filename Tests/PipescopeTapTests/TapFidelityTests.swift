import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeTestSupport
import XCTest

struct SampleError: Error, CustomStringConvertible {
    var description: String { "sample failure" }
}

/// Real OpenCombine pipelines, tapped; the asserted trees are what OpenCombine runs.
final class TapFidelityTests: XCTestCase {
    private var probe: Probe!

    override func setUp() {
        probe = Probe()
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
        probe = nil
    }

    private func dump(values: Bool = false) -> [String] {
        probe.flush()
        return GraphDump.lines(probe.graph, showValues: values)
    }

    func testSubjectMapFilterSink() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let c = subject.map { $0 * 10 }.filter { $0 % 20 == 0 }.sink { received.append($0) }
        for i in 1...4 { subject.send(i) }
        XCTAssertEqual(dump(values: true), [
            "Filter<-Sink active req=unlimited values=2 last=40",
            "  Map<-Filter active req=unlimited values=4 last=40",
            "    PassthroughSubject<-Map active req=unlimited values=4 last=4",
        ])
        subject.send(completion: .finished)
        XCTAssertEqual(dump(), [
            "Filter<-Sink finished req=unlimited values=2",
            "  Map<-Filter finished req=unlimited values=4",
            "    PassthroughSubject<-Map finished req=unlimited values=4",
        ])
        XCTAssertEqual(received, [20, 40])
        // Map and Filter pass the subject's subscription straight through.
        let graph = probe.graph
        let subjectStage = graph.nodes.values.first { $0.operatorName == "PassthroughSubject" }!
        XCTAssertEqual(subjectStage.sharers.count, 2)
        XCTAssertEqual(probe.liveStageCount, 0)
        c.cancel()
        XCTAssertEqual(dump().first, "Filter<-Sink finished req=unlimited values=2", "cancel after completion does nothing")
    }

    func testFlatMapInnerPublishersAreChildrenOfFlatMap() {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.flatMap { Just($0 * 2) }.sink { _ in }
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(dump(), [
            "FlatMap<-Sink active req=unlimited values=2",
            "  PassthroughSubject<-FlatMap active req=unlimited values=2",
            "  Just<-FlatMap finished req=unlimited values=1",
            "  Just<-FlatMap finished req=unlimited values=1",
        ])
        c.cancel()
    }

    func testReceiveOnQueue() {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "pipescope.test.receive")
        let done = expectation(description: "values")
        done.expectedFulfillmentCount = 3
        let c = subject.receive(on: queue.ocombine).sink { _ in done.fulfill() }
        for i in 1...3 { subject.send(i) }
        wait(for: [done], timeout: 30)
        queue.sync {}
        XCTAssertEqual(dump(), [
            "ReceiveOn<-Sink active req=unlimited values=3",
            "  PassthroughSubject<-ReceiveOn active req=unlimited values=3",
        ])
        c.cancel()
        XCTAssertEqual(dump(), [
            "ReceiveOn<-Sink cancelled(downstream) req=unlimited values=3",
            "  PassthroughSubject<-ReceiveOn cancelled(downstream) req=unlimited values=3",
        ])
    }

    func testCancelledSink() {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 + 1 }.sink { _ in }
        subject.send(1)
        c.cancel()
        subject.send(2)
        XCTAssertEqual(dump(), [
            "Map<-Sink cancelled(downstream) req=unlimited values=1",
            "  PassthroughSubject<-Map cancelled(downstream) req=unlimited values=1",
        ])
        XCTAssertEqual(probe.liveStageCount, 0)
    }

    func testFinishingPipeline() {
        var got: [Int] = []
        _ = [1, 2, 3].publisher.sink { got.append($0) }
        XCTAssertEqual(dump(values: true), ["Sequence<-Sink finished req=unlimited values=3 last=3"])
        XCTAssertEqual(got, [1, 2, 3])
    }

    func testFailingPipeline() {
        let subject = PassthroughSubject<Int, Never>()
        var completion: Subscribers.Completion<Error>?
        let c = subject.tryMap { value -> Int in
            if value == 2 { throw SampleError() }
            return value
        }.sink(receiveCompletion: { completion = $0 }, receiveValue: { _ in })
        subject.send(1)
        subject.send(2)
        XCTAssertNotNil(completion)
        XCTAssertEqual(dump(), [
            "TryMap<-Sink failed req=unlimited values=1 error=sample failure",
            "  PassthroughSubject<-TryMap cancelled(downstream) req=unlimited values=2",
        ])
        c.cancel()
    }

    func testDemandFromRequestsAndFromReceive() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CountingSubscriber(initial: 2, perValue: 1)
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        // 2 requested up front, plus 1 returned from each receive(_:).
        XCTAssertEqual(dump(), ["PassthroughSubject<-CountingSubscriber active req=4 values=2"])
        XCTAssertEqual(probe.graph.nodes.values.first?.outstanding, .count(2))
        subscriber.subscription?.cancel()
    }

    func testForwardingPublisherMirrorsWhatItForwardsTo() {
        // Deferred subscribes its subscriber, unchanged, to the publisher it makes.
        let subject = PassthroughSubject<Int, Never>()
        let c = Deferred { subject }.sink { _ in }
        subject.send(1)
        XCTAssertEqual(dump(), [
            "Deferred<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-Sink active req=unlimited values=1",
        ])
        c.cancel()
        XCTAssertEqual(dump(), [
            "Deferred<-Sink cancelled(downstream) req=unlimited values=1",
            "  PassthroughSubject<-Sink cancelled(downstream) req=unlimited values=1",
        ])
        XCTAssertEqual(probe.liveStageCount, 0)
    }

    func testReleasedAnyCancellableIsCancelledByItsOwner() {
        let subject = PassthroughSubject<Int, Never>()
        var c: AnyCancellable? = subject.map { $0 }.sink { _ in }
        subject.send(1)
        c = nil
        XCTAssertNil(c)
        XCTAssertEqual(dump(), [
            "Map<-Sink cancelled(owner) req=unlimited values=1",
            "  PassthroughSubject<-Map cancelled(owner) req=unlimited values=1",
        ])
    }

    func testAnOwnersSetGoingAwayCancelsWithCauseOwner() {
        let subject = PassthroughSubject<Int, Never>()
        var bag: Set<AnyCancellable>? = []
        subject.sink { _ in }.store(in: &bag!)
        subject.sink { _ in }.store(in: &bag!)
        bag = nil
        XCTAssertEqual(dump(), [
            "PassthroughSubject<-Sink cancelled(owner) req=unlimited values=0",
            "PassthroughSubject<-Sink cancelled(owner) req=unlimited values=0",
        ])
    }

    func testAnUnretainedSinkIsCancelledByItsOwnerAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        _ = subject.sink { _ in }
        subject.send(1)
        XCTAssertEqual(dump(), ["PassthroughSubject<-Sink cancelled(owner) req=unlimited values=0"])
    }

    func testTheCancelAnOwnerSetsOffUpstreamIsByEachDownstream() {
        let subject = PassthroughSubject<Int, Never>()
        var c: AnyCancellable? = subject.receive(on: ImmediateScheduler.shared).sink { _ in }
        c = nil
        XCTAssertNil(c)
        XCTAssertEqual(dump(), [
            "ReceiveOn<-Sink cancelled(owner) req=unlimited values=0",
            "  PassthroughSubject<-ReceiveOn cancelled(downstream) req=unlimited values=0",
        ])
    }

    func testAnyPublisherHidesItsBase() {
        // AnyPublisher's box calls receive(subscriber:) directly, so the hook never sees
        // the erased publisher subscribe: the stage is the AnyPublisher itself.
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.eraseToAnyPublisher().sink { _ in }
        subject.send(1)
        XCTAssertEqual(dump(), ["AnyPublisher<-Sink active req=unlimited values=1"])
        c.cancel()
    }
}
