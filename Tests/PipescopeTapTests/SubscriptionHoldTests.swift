@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import XCTest

/// The tap holds each subscription object by its unowned count (``SubscriptionHold``):
/// never longer alive than without the tap, its address never handed to a new object
/// while the tap still maps it, the count given back when the entry goes, and a dead one
/// never touched by an inspector's cancel.
final class SubscriptionHoldTests: XCTestCase {
    /// A subscription that says when it deinitialises.
    private final class Watched: Subscription, @unchecked Sendable {
        let onDeinit: () -> Void
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
        deinit { onDeinit() }
    }

    /// Hands each subscriber a new ``Watched``.
    private struct Source: Publisher {
        typealias Output = Int
        typealias Failure = Never
        let make: () -> Watched
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            subscriber.receive(subscription: make())
        }
    }

    /// Keeps the subscription it is given, or drops it at once (a subscriber that never
    /// stores it: the subscription dies with no cancel and no completion).
    private final class Holder: Subscriber, @unchecked Sendable {
        typealias Input = Int
        typealias Failure = Never
        let keeps: Bool
        var subscription: (any Subscription)?
        init(keeps: Bool) { self.keeps = keeps }
        func receive(subscription: any Subscription) { if keeps { self.subscription = subscription } }
        func receive(_ input: Int) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<Never>) {}
    }

    private final class Flag: @unchecked Sendable {
        var value = false
    }

    private final class Made: @unchecked Sendable {
        var subscription: Watched?
    }

    /// Unowned count of `object` (the runtime keeps 1 for the strong references).
    private func unownedCount(_ object: AnyObject) -> UInt { _getUnownedRetainCount(object) }

    func testTheHoldIsGivenBackOnCancelAndLifeIsUnchanged() throws {
        let probe = Probe()
        probe.enable()
        defer { probe.disable() }
        let died = Flag()
        let made = Made()
        let holder = Holder(keeps: true)
        Source(make: {
            let s = Watched { died.value = true }
            made.subscription = s
            return s
        }).subscribe(holder)
        let base = withExtendedLifetime(Watched {}) { unownedCount($0) }
        do {
            let subscription = try XCTUnwrap(made.subscription)
            made.subscription = nil
            XCTAssertEqual(unownedCount(subscription), base + 1,
                           "the tap holds one unowned count while it maps the subscription")
            // The subscriber cancels (through OpenCombine's wrapper, as a program does):
            // the tap forgets it and gives its count back.
            holder.subscription?.cancel()
            XCTAssertEqual(unownedCount(subscription), base)
        }
        XCTAssertFalse(died.value)
        holder.subscription = nil
        XCTAssertTrue(died.value, "the subscription deinitialises when its last strong reference goes")
    }

    func testADeadSubscriptionIsNotKeptAliveNotCancellableAndItsAddressIsNotReused() throws {
        let probe = Probe()
        probe.enable()
        defer { probe.disable() }
        let died = Flag()
        var address: ObjectIdentifier?
        let holder = Holder(keeps: false)
        Source(make: {
            let s = Watched { died.value = true }
            address = ObjectIdentifier(s)
            return s
        }).subscribe(holder)
        XCTAssertTrue(died.value, "the tap keeps no strong reference: a dropped subscription deinitialises at once")
        let address0 = try XCTUnwrap(address)

        // Its stage is still mapped (no cancel, no completion). Objects of the same size
        // made now never take the dead one's address, so its identifier cannot be
        // mistaken for a new subscription's. (Without the hold, malloc hands the freed
        // block to the very next one.)
        var fresh: [Watched] = []
        for _ in 0..<1_000 { fresh.append(Watched {}) }
        XCTAssertFalse(fresh.contains { ObjectIdentifier($0) == address0 })

        // The inspector's cancel finds it dead and touches nothing.
        probe.flush()
        let node = try XCTUnwrap(probe.graph.nodes.values.first { $0.info.subscriber.contains("Holder") }?.id)
        guard case .notCancellable = probe.registry.cancelFromInspector(node: node) else {
            return XCTFail("a dead subscription is not cancellable")
        }
    }

    func testTheRegistryGivesEveryHoldBackWhenItGoes() {
        let subscription = Watched {}
        let base = unownedCount(subscription)
        weak var gone: StageRegistry?
        do {
            let probe = Probe()
            gone = probe.registry
            probe.enable()
            let holder = Holder(keeps: true)
            // Made through another object: a closure capturing the subscription alone has
            // it as its context, which the tap also holds while the stage lives (the
            // publisher's identity: PublisherIdentityTests).
            let made = Made()
            made.subscription = subscription
            Source(make: { made.subscription! }).subscribe(holder)
            XCTAssertEqual(unownedCount(subscription), base + 1)
            probe.disable()
            holder.subscription = nil
        }
        XCTAssertNil(gone, "the registry went with its probe")
        XCTAssertEqual(unownedCount(subscription), base, "its hold was given back")
    }
}
