@preconcurrency import OpenCombine

/// A subscriber that requests a few values at a time, as custom subscribers do.
public final class CountingSubscriber: Subscriber, CustomStringConvertible, @unchecked Sendable {
    public typealias Input = Int
    public typealias Failure = Never
    public let initial: Int
    public let perValue: Int
    public var subscription: Subscription?
    public init(initial: Int, perValue: Int) { self.initial = initial; self.perValue = perValue }
    public var description: String { "CountingSubscriber" }
    public func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(initial))
    }
    public func receive(_ input: Int) -> Subscribers.Demand { .max(perValue) }
    public func receive(completion: Subscribers.Completion<Never>) {}
}
