import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// Where real OpenCombine pipelines wait (``Waits``), with `now` given exactly: the
/// verdict's reason, the stage it names, when the wait began and the last request.
/// Each verdict is checked to be the same on the session's recording.
final class WaitTests: RecordedProbeTestCase {
    private let second: Int64 = 1_000_000_000

    /// The verdicts on the probe's graph at `now` (2 s threshold), after checking that
    /// the recording of the session gives the same.
    private func waits(now: Int64, file: StaticString = #filePath, line: UInt = #line) throws -> Waits {
        recorder.flush()
        let live = Waits(probe.graph, now: now, after: 2)
        XCTAssertEqual(Waits(try recorder.replayedGraph(), now: now, after: 2), live, "the recording disagrees",
                       file: file, line: line)
        return live
    }

    /// The one stage whose operator is `name`.
    private func stage(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> NodeSummary {
        recorder.flush()
        let found = probe.graph.nodes.values.filter { $0.operatorName == name }
        XCTAssertEqual(found.count, 1, "stages named \(name)", file: file, line: line)
        return try XCTUnwrap(found.first, file: file, line: line)
    }

    func testASubscriberThatAskedForOneValueHoldsThePipelineOnDemand() throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        subject.subscribe(subscriber)
        subject.send(1)
        let root = try stage("PassthroughSubject")
        XCTAssertNil(root.parent)
        let delivered = try XCTUnwrap(root.lastValueNanos)
        XCTAssertNil(try waits(now: delivered + 2 * second).pipeline(root.id), "not more than the threshold yet")
        let waits = try waits(now: delivered + 12 * second)
        let expected = Wait(reason: .demand, at: root.id, sinceNanos: delivered, lastRequest: .count(1))
        XCTAssertEqual(waits.pipeline(root.id), expected)
        XCTAssertEqual(waits[root.id], expected)
        XCTAssertEqual(waits.holders, [root.id])
        XCTAssertEqual(expected.cell(in: probe.graph, now: delivered + 12 * second), "held: demand 0 12s")
        withExtendedLifetime(subscriber) {}
    }

    func testAFutureNeverFulfilledUnderMapHoldsThePipelineUpstream() throws {
        let c = Future<Int, Never> { _ in }.map { $0 + 1 }.sink { _ in }
        let future = try stage("Future")
        let map = try stage("Map")
        XCTAssertEqual(future.parent, map.id)
        XCTAssertEqual(future.status, .active)
        let asked = try XCTUnwrap(future.recentRequests.first?.time)
        let waits = try waits(now: asked + 41 * second)
        let expected = Wait(reason: .upstream, at: future.id, sinceNanos: asked)
        XCTAssertEqual(waits.pipeline(map.id), expected)
        XCTAssertEqual(waits[map.id], expected, "the Map waits too, on the Future")
        XCTAssertEqual(waits[future.id], expected)
        XCTAssertEqual(waits.holders, [future.id])
        XCTAssertEqual(expected.cell(in: probe.graph, now: asked + 41 * second), "waits ↑ Future 41s")
        c.cancel()
        XCTAssertTrue(try self.waits(now: asked + 41 * second).pipelines.isEmpty, "ended pipelines do not wait")
    }

    func testAPublisherThatNeverSendsASubscriptionIsWaitedOnForOne() throws {
        let c = SilentPublisher().sink { _ in }
        let silent = try stage("SilentPublisher")
        XCTAssertEqual(silent.status, .subscribing)
        let waits = try waits(now: silent.createdNanos + 3 * second)
        XCTAssertEqual(waits.pipeline(silent.id), Wait(reason: .subscription, at: silent.id, sinceNanos: silent.createdNanos))
        withExtendedLifetime(c) {}
    }

    func testUnderAMapTheSilentPublisherHoldsTheWaitForASubscription() throws {
        let c = SilentPublisher().map { $0 }.sink { _ in }
        let silent = try stage("SilentPublisher")
        let map = try stage("Map")
        XCTAssertEqual(map.status, .subscribing)
        let now = silent.createdNanos + 3 * second
        let waits = try waits(now: now)
        XCTAssertEqual(waits.pipeline(map.id), Wait(reason: .subscription, at: silent.id, sinceNanos: map.createdNanos))
        XCTAssertEqual(waits[silent.id], Wait(reason: .subscription, at: silent.id, sinceNanos: silent.createdNanos))
        withExtendedLifetime(c) {}
    }

    func testAPipelineDeliveringEvery50msFlows() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.sink { _ in }
        for i in 0..<6 {
            Thread.sleep(forTimeInterval: 0.05)
            subject.send(i)
        }
        let map = try stage("Map")
        let last = try XCTUnwrap(map.lastValueNanos)
        XCTAssertEqual(map.values, 6)
        XCTAssertTrue(try waits(now: last + 10_000_000).pipelines.isEmpty, "10 ms after the last value: flowing")
        XCTAssertTrue(try waits(now: last + 2 * second).pipelines.isEmpty, "the threshold itself is not yet a wait")
        // Once the values stop, it waits on its source (the subject nobody sends to).
        let subjectStage = try stage("PassthroughSubject")
        XCTAssertEqual(try waits(now: last + 5 * second).pipeline(map.id),
                       Wait(reason: .upstream, at: subjectStage.id, sinceNanos: last))
        c.cancel()
    }

    func testAStageThatWaitedFlowsAgainOnceAValueArrives() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        let root = try stage("PassthroughSubject")
        let asked = try XCTUnwrap(root.recentRequests.first?.time)
        XCTAssertEqual(try waits(now: asked + 3 * second).pipeline(root.id),
                       Wait(reason: .upstream, at: root.id, sinceNanos: asked))
        subject.send(7)
        let delivered = try XCTUnwrap(try stage("PassthroughSubject").lastValueNanos)
        XCTAssertNil(try waits(now: delivered + second).pipeline(root.id), "a value is progress")
        XCTAssertEqual(try waits(now: delivered + 3 * second).pipeline(root.id),
                       Wait(reason: .upstream, at: root.id, sinceNanos: delivered), "and the next wait starts there")
        c.cancel()
    }

    func testASubscriberHeldOnDemandFlowsAgainWhenItRequestsMore() throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        subject.subscribe(subscriber)
        subject.send(1)
        let root = try stage("PassthroughSubject")
        let delivered = try XCTUnwrap(root.lastValueNanos)
        XCTAssertEqual(try waits(now: delivered + 3 * second).pipeline(root.id)?.reason, .demand)
        subscriber.subscription?.request(.max(2))
        let asked = try XCTUnwrap(try stage("PassthroughSubject").recentRequests.last?.time)
        XCTAssertNil(try waits(now: asked + second).pipeline(root.id), "a request is progress")
        XCTAssertEqual(try waits(now: asked + 3 * second).pipeline(root.id),
                       Wait(reason: .upstream, at: root.id, sinceNanos: asked), "now it waits on the subject")
    }

    /// A subscriber that keeps calling `request(_:)` while its upstream is stuck (a
    /// retry loop asking again every second) is no progress: after the last value, the
    /// wait counts from the first request made, not the newest, so the pipeline reads
    /// as waiting on the subject, not as flowing. (A rule taking the newest request
    /// would call it flowing for as long as the subscriber keeps asking.)
    func testASubscriberThatKeepsRequestingWhileUpstreamIsStuckWaitsOnUpstream() throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        subject.subscribe(subscriber)
        subject.send(1)
        let delivered = try XCTUnwrap(try stage("PassthroughSubject").lastValueNanos)
        for _ in 0..<3 { subscriber.subscription?.request(.max(1)) }
        let root = try stage("PassthroughSubject")
        let asks = root.recentRequests.map(\.time).filter { $0 > delivered }
        XCTAssertEqual(asks.count, 3, "three requests after the value: \(root.recentRequests)")
        let first = try XCTUnwrap(asks.first)
        let newest = try XCTUnwrap(asks.last)
        XCTAssertGreaterThan(newest, first, "the requests are apart in time")
        // The threshold after the newest request: more than it after the first.
        let now = newest + 2 * second
        let expected = Wait(reason: .upstream, at: root.id, sinceNanos: first)
        let waits = try waits(now: now)
        XCTAssertEqual(waits.pipeline(root.id), expected, "requests that bring nothing are no progress")
        XCTAssertEqual(waits.holders, [root.id])
        XCTAssertEqual(expected.cell(in: probe.graph, now: now), "waits ↑ PassthroughSubject 2s")
        withExtendedLifetime(subscriber) {}
    }
}

/// A publisher that never calls `receive(subscription:)` on its subscriber.
struct SilentPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
}
