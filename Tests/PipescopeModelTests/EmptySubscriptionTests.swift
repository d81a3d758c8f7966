import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// A publisher that hands its subscriber `Subscriptions.empty` (a hand-written one that
/// pushes values itself, OpenCombine's `Empty` and `Fail`) is asked for values like any
/// other: the subscriber's request, made on the shared empty subscription, is the stage's
/// own. Such a publisher that never sends waits on itself ("make it send", at its
/// `receive(subscriber:)`), never on a subscriber said to have "never requested any".
final class EmptySubscriptionTests: RecordedProbeTestCase {
    private var later: Int64 { Int64(Date().timeIntervalSince1970 * 1e9) + 60_000_000_000 }

    /// Sends a greeting when `answers`; forgets to otherwise.
    struct Greeting: Publisher {
        typealias Output = String
        typealias Failure = Never
        let answers: Bool

        func receive<S: Subscriber>(subscriber: S) where S.Input == String, S.Failure == Never {
            subscriber.receive(subscription: Subscriptions.empty)
            if answers {
                _ = subscriber.receive("hello")
                subscriber.receive(completion: .finished)
            }
        }
    }

    /// Asks for `demand` when it gets its subscription, and keeps it.
    final class Asking: Subscriber, @unchecked Sendable {
        let demand: Subscribers.Demand
        var subscription: Subscription?
        init(_ demand: Subscribers.Demand) { self.demand = demand }
        func receive(subscription: Subscription) {
            self.subscription = subscription
            subscription.request(demand)
        }
        func receive(_ input: String) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<Never>) {}
    }

    private func stage(_ operatorName: String) throws -> NodeSummary {
        recorder.flush()
        return try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == operatorName }, operatorName)
    }

    func testASinksRequestOnTheEmptySubscriptionIsItsStagesDemand() throws {
        let c = Greeting(answers: false).sink { _ in }
        let greeting = try stage("Greeting")
        XCTAssertEqual(greeting.requested, .unlimited, "sink asked for everything, on Subscriptions.empty")
        let found = lints(now: later).filter { $0.kind == .stalled }
        XCTAssertEqual(found.map(\.node), [greeting.id])
        let message = try XCTUnwrap(found.first?.message)
        XCTAssertTrue(message.contains("Make it send"), message)
        XCTAssertFalse(message.contains("never requested"), message)
        c.cancel()
    }

    func testASubscribersOwnDemandIsCountedAsItAsked() throws {
        let asking = Asking(.max(3))
        Greeting(answers: false).subscribe(asking)
        XCTAssertEqual(try stage("Greeting").requested, .count(3))
        asking.subscription?.cancel()
    }

    func testOpenCombinesEmptyAndAnAnsweringPublisherToo() throws {
        let empty = Empty<String, Never>(completeImmediately: false).sink { _ in }
        XCTAssertEqual(try stage("Empty").requested, .unlimited)
        var got: [String] = []
        let answered = Greeting(answers: true).sink { got.append($0) }
        XCTAssertEqual(got, ["hello"])
        let greeting = try stage("Greeting")
        XCTAssertEqual([greeting.values], [1])
        XCTAssertEqual(greeting.status, .finished)
        XCTAssertEqual(lints(now: later).filter { $0.kind == .stalled }.map(\.node), [try stage("Empty").id],
                       "an Empty that never completes waits on itself; the answered greeting is done")
        empty.cancel()
        answered.cancel()
    }
}
