@preconcurrency import OpenCombine

/// A publisher that breaks the rules on purpose: on the first request it sends `count`
/// values whatever the demand, and optionally one more after finishing.
struct RudePublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never
    let count: Int
    var valueAfterFinish = false

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
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

/// A subscriber that asks for `initial` values and no more.
final class AsksFor: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never
    let initial: Int
    init(_ initial: Int) { self.initial = initial }
    func receive(subscription: Subscription) { subscription.request(.max(initial)) }
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}

/// The promises of the requests a test made, fulfilled when it says.
final class Promises: @unchecked Sendable {
    private var waiting: [(Result<Int, Never>) -> Void] = []
    func append(_ promise: @escaping (Result<Int, Never>) -> Void) { waiting.append(promise) }
    func fulfil() {
        for promise in waiting { promise(.success(1)) }
        waiting = []
    }
}

/// Promises kept by the value they were made for, fulfilled in the order a test chooses
/// (an old search's answer after a newer one's).
final class PromisesByValue: @unchecked Sendable {
    private var waiting: [Int: (Result<Int, Never>) -> Void] = [:]
    func append(_ value: Int, _ promise: @escaping (Result<Int, Never>) -> Void) { waiting[value] = promise }
    func fulfil(_ value: Int) { waiting.removeValue(forKey: value)?(.success(value * 10)) }
}

/// Where a test keeps what must outlive it (a leak, on purpose).
enum Outliving {
    nonisolated(unsafe) static var kept: [AnyCancellable] = []
}
