import Foundation
@preconcurrency import OpenCombine

// Two shapes for the metrics' end-to-end test (#46), each a program a dashboard should
// flag: EXAMPLE_SHAPE=held and EXAMPLE_SHAPE=pileup.

/// EXAMPLE_SHAPE=held: a subscriber that asks for one value and then never for more,
/// on the subject the driver keeps sending to: held on demand (the inspector's
/// `held: demand 0`), so `pipescope_pipelines_waiting{reason="demand"}` is 1 once it has
/// been so for the wait threshold.
final class AsksOnce: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never

    /// Kept only to be cancelled with the program; never asked again.
    private var subscription: (any Subscription)?

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand { .none }

    func receive(completion: Subscribers.Completion<Never>) {}
}

/// EXAMPLE_SHAPE=pileup: each value the driver sends subscribes one more pipeline at
/// one line, kept forever, as a screen that subscribes on every appearance and never
/// cancels does: `pipescope_pipelines` at that line rises by 20 a second. Each on a
/// subject of its own that nobody sends to, so the pile costs memory, not events.
final class PileUp: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [AnyCancellable] = []

    /// Subscribes one more (on the driver's queue).
    func add() {
        let made = PassthroughSubject<Int, Never>().map { $0 + 1 }.sink { _ in }  // the pile's place
        lock.withLock { kept.append(made) }
    }
}
