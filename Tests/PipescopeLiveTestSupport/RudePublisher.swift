@preconcurrency import OpenCombine

/// A publisher that breaks the rules on purpose: on the first request it sends `count`
/// values whatever the demand, and optionally one more after finishing. The lint tests'
/// (demand-violation, after-terminal) and PipescopeTesting's.
///
/// ```swift
/// RudePublisher(count: 3).subscribe(subscriberAskingForOne)   // 3 values for a demand of 1
/// ```
public struct RudePublisher: Publisher {
    public typealias Output = Int
    public typealias Failure = Never
    public let count: Int
    public var valueAfterFinish = false

    public init(count: Int, valueAfterFinish: Bool = false) {
        self.count = count
        self.valueAfterFinish = valueAfterFinish
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: RudeSubscription(subscriber: AnySubscriber(subscriber), publisher: self))
    }
}

final class RudeSubscription: Subscription, @unchecked Sendable {
    private var subscriber: AnySubscriber<Int, Never>?
    private let publisher: RudePublisher
    init(subscriber: AnySubscriber<Int, Never>, publisher: RudePublisher) {
        self.subscriber = subscriber
        self.publisher = publisher
    }
    func request(_ demand: Subscribers.Demand) {
        guard let subscriber else { return }
        self.subscriber = nil
        for i in 0..<publisher.count { _ = subscriber.receive(i) }
        subscriber.receive(completion: .finished)
        if publisher.valueAfterFinish { _ = subscriber.receive(99) }
    }
    func cancel() { subscriber = nil }
}
