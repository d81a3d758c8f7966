import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@preconcurrency import OpenCombine
import OpenCombineDispatch
import OpenCombineFoundation
import PipescopeTestSupport

/// One pipeline shape for the fidelity table: how to build and drive it, and the exact
/// tree the tap must report afterwards (from `GraphDump.lines`).
struct ShapeCase: @unchecked Sendable {
    let name: String
    /// Builds and drives the pipeline; returns what must stay alive until the dump.
    let run: () -> [Any]
    let expected: [String]
}

/// A subscriber that requests `batch` values at a time, as custom subscribers do.
final class BatchSubscriber: Subscriber, CustomStringConvertible, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never
    let batch: Int
    private var subscription: Subscription?
    private var inBatch = 0
    private(set) var received: [Int] = []
    init(batch: Int) { self.batch = batch }
    var description: String { "BatchSubscriber" }
    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(batch))
    }
    func receive(_ input: Int) -> Subscribers.Demand {
        received.append(input)
        inBatch += 1
        if inBatch == batch {
            inBatch = 0
            return .max(batch)
        }
        return .none
    }
    func receive(completion: Subscribers.Completion<Never>) {}
    func cancel() { subscription?.cancel() }
}

final class Model: @unchecked Sendable {
    @Published var name = "a"
}

final class Target: @unchecked Sendable {
    var value = 0
}

struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

// Built in a nonisolated context, as user code must be in Swift 6 (see README).
enum Shapes {
    static let all: [ShapeCase] = [
        ShapeCase(name: "fusion: Just.map is a Just, map.map is one Map", run: {
            let a = Just(1).map { $0 + 1 }.sink { _ in }
            let s = PassthroughSubject<Int, Never>()
            let b = s.map { $0 + 1 }.map { $0 * 2 }.sink { _ in }
            s.send(1)
            return [a, b, s]
        }, expected: [
            "Just<-Sink finished req=unlimited values=1",
            "Map<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-Map active req=unlimited values=1",
        ]),
        ShapeCase(name: "Timer publisher on the main run loop", run: {
            var fired = false
            let c = Timer.publish(every: 0.01, on: RunLoop.main, in: .default).autoconnect().first().sink { _ in fired = true }
            // Until the first tick, however late it comes on a busy machine.
            let deadline = Date().addingTimeInterval(30)
            while !fired, Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
            return [c]
        }, expected: [
            "First<-Sink finished req=unlimited values=1",
            "  Autoconnect<-First cancelled(downstream) req=unlimited values=1",
            "    TimerPublisher<-Autoconnect cancelled(downstream) req=unlimited values=1",
        ]),
        ShapeCase(name: "URLSession data task", run: {
            let done = DispatchSemaphore(value: 0)
            let url = URL(string: "data:text/plain,pipescope")!
            let c = URLSession.shared.ocombine.dataTaskPublisher(for: url)
                .map { String(decoding: $0.data, as: UTF8.self) }
                .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
            _ = done.wait(timeout: .now() + 30)
            return [c]
        }, expected: [
            "Map<-Sink finished req=unlimited values=1",
            "  DataTaskPublisher<-Map finished req=unlimited values=1",
        ]),
        ShapeCase(name: "linear chain", run: {
            let s = PassthroughSubject<Int, Never>()
            let c = s.map { $0 + 1 }.compactMap { $0 }.scan(0, +).sink { _ in }
            s.send(1); s.send(2)
            return [c, s]
        }, expected: [
            "Scan<-Sink active req=unlimited values=2",
            "  CompactMap<-Scan active req=unlimited values=2",
            "    Map<-CompactMap active req=unlimited values=2",
            "      PassthroughSubject<-Map active req=unlimited values=2",
        ]),
        ShapeCase(name: "zip", run: {
            let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<String, Never>()
            let c = a.zip(b).sink { _ in }
            a.send(1); a.send(2); b.send("x")
            return [c, a, b]
        }, expected: [
            "Zip<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-ChildSubscriber active req=unlimited values=2",
            "  PassthroughSubject<-ChildSubscriber active req=unlimited values=1",
        ]),
        ShapeCase(name: "flatMap inner publishers", run: {
            let s = PassthroughSubject<Int, Never>()
            let c = s.flatMap { n in [n, n + 1].publisher.map { $0 * 10 } }.sink { _ in }
            s.send(1)
            return [c, s]
        }, expected: [
            "FlatMap<-Sink active req=unlimited values=2",
            "  PassthroughSubject<-FlatMap active req=unlimited values=1",
            "  Sequence<-FlatMap finished req=unlimited values=2",
        ]),
        ShapeCase(name: "switchToLatest", run: {
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let first = PassthroughSubject<Int, Never>(), second = PassthroughSubject<Int, Never>()
            let c = outer.switchToLatest().sink { _ in }
            outer.send(first); first.send(1); outer.send(second); first.send(2); second.send(3)
            return [c, outer, first, second]
        }, expected: [
            "SwitchToLatest<-Sink active req=unlimited values=2",
            "  PassthroughSubject<-SwitchToLatest active req=unlimited values=2",
            "  PassthroughSubject<-SwitchToLatest cancelled(downstream) req=unlimited values=1",
            "  PassthroughSubject<-SwitchToLatest active req=unlimited values=1",
        ]),
        ShapeCase(name: "catch", run: {
            let s = PassthroughSubject<Int, Boom>()
            let c = s.catch { _ in Just(99) }.sink { _ in }
            s.send(1); s.send(completion: .failure(Boom()))
            return [c, s]
        }, expected: [
            "Catch<-Sink finished req=unlimited values=2",
            "  PassthroughSubject<-Catch failed req=unlimited values=1 error=boom",
            "  Just<-Catch finished req=unlimited values=1",
        ]),
        ShapeCase(name: "retry", run: {
            var attempts = 0
            let c = Deferred { () -> AnyPublisher<Int, Boom> in
                attempts += 1
                return attempts < 3 ? Fail(error: Boom()).eraseToAnyPublisher() : Just(7).setFailureType(to: Boom.self).eraseToAnyPublisher()
            }.retry(5).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
            return [c]
        }, expected: [
            "Retry<-Sink finished req=unlimited values=1",
            "  Deferred<-Retry failed req=unlimited values=0 error=boom",
            "    AnyPublisher<-Retry failed req=unlimited values=0 error=boom",
            "  Deferred<-Retry failed req=unlimited values=0 error=boom",
            "    AnyPublisher<-Retry failed req=unlimited values=0 error=boom",
            "  Deferred<-Retry finished req=unlimited values=1",
            "    AnyPublisher<-Retry finished req=unlimited values=1",
        ]),
        ShapeCase(name: "share", run: {
            let s = PassthroughSubject<Int, Never>()
            let shared = s.map { $0 * 2 }.share()
            let c1 = shared.sink { _ in }, c2 = shared.sink { _ in }
            s.send(1)
            return [c1, c2, s]
        }, expected: [
            "Share<-Sink active req=unlimited values=1",
            "  Autoconnect<-Sink active req=unlimited values=1",
            "    Multicast<-Autoconnect active req=unlimited values=1",
            "      PassthroughSubject<-Multicast active req=unlimited values=1",
            "        Map<-Subject active req=unlimited values=1",
            "          PassthroughSubject<-Map active req=unlimited values=1",
            "Share<-Sink active req=unlimited values=1",
            "  Autoconnect<-Sink active req=unlimited values=1",
            "    Multicast<-Autoconnect active req=unlimited values=1",
            "      PassthroughSubject<-Multicast active req=unlimited values=1",
            "        ^Map (shared)",
        ]),
        ShapeCase(name: "multicast with later connect", run: {
            let s = PassthroughSubject<Int, Never>()
            let m = s.multicast { PassthroughSubject<Int, Never>() }
            let c1 = m.sink { _ in }, c2 = m.sink { _ in }
            let connection = m.connect()
            s.send(1)
            return [c1, c2, connection, s]
        }, expected: [
            "Multicast<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-Multicast active req=unlimited values=1",
            "    PassthroughSubject<-Subject active req=unlimited values=1",
            "Multicast<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-Multicast active req=unlimited values=1",
            "    ^PassthroughSubject (shared)",
        ]),
        ShapeCase(name: "autoconnect", run: {
            let s = PassthroughSubject<Int, Never>()
            let c = s.makeConnectable().autoconnect().sink { _ in }
            s.send(1)
            return [c, s]
        }, expected: [
            "Autoconnect<-Sink active req=unlimited values=1",
            "  MakeConnectable<-Autoconnect active req=unlimited values=1",
            "    Multicast<-Autoconnect active req=unlimited values=1",
            "      PassthroughSubject<-Multicast active req=unlimited values=1",
            "        PassthroughSubject<-Subject active req=unlimited values=1",
        ]),
        ShapeCase(name: "append and prepend", run: {
            let c = [2, 3].publisher.prepend(1).append(4).sink { _ in }
            return [c]
        }, expected: [
            "Sequence<-Sink finished req=unlimited values=4",
        ]),
        ShapeCase(name: "prefix(untilOutputFrom:)", run: {
            let s = PassthroughSubject<Int, Never>(), stop = PassthroughSubject<Void, Never>()
            let c = s.prefix(untilOutputFrom: stop).sink { _ in }
            s.send(1); stop.send(()); s.send(2)
            return [c, s, stop]
        }, expected: [
            "PrefixUntilOutput<-Sink finished req=unlimited values=1",
            "  PassthroughSubject<-Termination active req=1 values=1",
            "  PassthroughSubject<-Inner cancelled(downstream) req=unlimited values=1",
        ]),
        ShapeCase(name: "drop(untilOutputFrom:)", run: {
            let s = PassthroughSubject<Int, Never>(), go = PassthroughSubject<Void, Never>()
            let c = s.drop(untilOutputFrom: go).sink { _ in }
            s.send(1); go.send(()); s.send(2)
            return [c, s, go]
        }, expected: [
            "DropUntilOutput<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-DropUntilOutput active req=1 values=1",
            "  PassthroughSubject<-DropUntilOutput active req=unlimited values=2",
        ]),
        ShapeCase(name: "debounce on a manual clock", run: {
            let clock = ManualScheduler()
            let s = PassthroughSubject<Int, Never>()
            let c = s.debounce(for: .milliseconds(100), scheduler: clock).sink { _ in }
            s.send(1); clock.advance(by: .milliseconds(50)); s.send(2); clock.advance(by: .milliseconds(100))
            return [c, s, clock]
        }, expected: [
            "Debounce<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-Debounce active req=unlimited values=2",
        ]),
        ShapeCase(name: "throttle on a manual clock", run: {
            let clock = ManualScheduler()
            let s = PassthroughSubject<Int, Never>()
            let c = s.throttle(for: .milliseconds(100), scheduler: clock, latest: true).sink { _ in }
            s.send(1); s.send(2); clock.advance(by: .milliseconds(100)); s.send(3); clock.advance(by: .milliseconds(100))
            return [c, s, clock]
        }, expected: [
            "Throttle<-Sink active req=unlimited values=2",
            "  PassthroughSubject<-Throttle active req=unlimited values=3",
        ]),
        ShapeCase(name: "delay on a manual clock", run: {
            let clock = ManualScheduler()
            let s = PassthroughSubject<Int, Never>()
            let c = s.delay(for: .milliseconds(100), scheduler: clock).sink { _ in }
            s.send(1); clock.advance(by: .milliseconds(100))
            return [c, s, clock]
        }, expected: [
            "Delay<-Sink active req=unlimited values=1",
            "  PassthroughSubject<-Inner active req=unlimited values=1",
        ]),
        ShapeCase(name: "timeout on a manual clock", run: {
            let clock = ManualScheduler()
            let s = PassthroughSubject<Int, Never>()
            let c = s.timeout(.milliseconds(100), scheduler: clock).sink { _ in }
            s.send(1); clock.advance(by: .milliseconds(150))
            return [c, s, clock]
        }, expected: [
            "Timeout<-Sink finished req=unlimited values=1",
            "  PassthroughSubject<-Timeout cancelled(downstream) req=unlimited values=1",
        ]),
        ShapeCase(name: "subscribe(on:) and receive(on:) on other queues", run: {
            let upstreamQueue = DispatchQueue(label: "pipescope.test.subscribe")
            let downstreamQueue = DispatchQueue(label: "pipescope.test.receive")
            let s = PassthroughSubject<Int, Never>()
            let c = s.subscribe(on: upstreamQueue.ocombine).receive(on: downstreamQueue.ocombine).sink { _ in }
            // subscribe(on:) subscribes, and requests, on its queue: wait for both hops,
            // or the subject has no demand yet and drops the value (Pipescope shows req=0).
            upstreamQueue.sync {}
            upstreamQueue.sync {}
            s.send(1)
            downstreamQueue.sync {}
            return [c, s]
        }, expected: [
            "ReceiveOn<-Sink active req=unlimited values=1",
            "  SubscribeOn<-ReceiveOn active req=unlimited values=1",
            "    PassthroughSubject<-SubscribeOn active req=unlimited values=1",
        ]),
        ShapeCase(name: "future", run: {
            let c = Future<Int, Never> { $0(.success(5)) }.sink { _ in }
            return [c]
        }, expected: [
            "Future<-Sink finished req=unlimited values=1",
        ]),
        ShapeCase(name: "record", run: {
            let c = Record<Int, Never>(output: [1, 2], completion: .finished).sink { _ in }
            return [c]
        }, expected: [
            "Record<-Sink finished req=unlimited values=2",
        ]),
        ShapeCase(name: "just, empty, fail", run: {
            let a = Just(1).sink { _ in }
            let b = Empty<Int, Never>().sink { _ in }
            let d = Fail<Int, Boom>(error: Boom()).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
            return [a, b, d]
        }, expected: [
            "Just<-Sink finished req=unlimited values=1",
            "Empty<-Sink finished req=unlimited values=0",
            "Fail<-Sink failed req=unlimited values=0 error=boom",
        ]),
        ShapeCase(name: "current value subject", run: {
            let s = CurrentValueSubject<Int, Never>(1)
            let c = s.sink { _ in }
            s.send(2)
            return [c, s]
        }, expected: [
            "CurrentValueSubject<-Sink active req=unlimited values=2",
        ]),
        ShapeCase(name: "@Published", run: {
            let model = Model()
            let c = model.$name.sink { _ in }
            model.name = "b"
            return [c, model]
        }, expected: [
            "Published.Publisher<-Sink active req=unlimited values=2",
            "  PublishedSubject<-Sink active req=unlimited values=2",
        ]),
        ShapeCase(name: "assign(to:on:)", run: {
            let target = Target()
            let s = PassthroughSubject<Int, Never>()
            let c = s.assign(to: \.value, on: target)
            s.send(3)
            return [c, s, target]
        }, expected: [
            "PassthroughSubject<-Assign Target. active req=unlimited values=1",
        ]),
        ShapeCase(name: "custom subscriber requesting .max(2)", run: {
            let s = PassthroughSubject<Int, Never>()
            let subscriber = BatchSubscriber(batch: 2)
            s.subscribe(subscriber)
            for i in 1...5 { s.send(i) }
            return [subscriber, s]
        }, expected: [
            "PassthroughSubject<-BatchSubscriber active req=6 values=5",
        ]),
        ShapeCase(name: "subject subscribed to a publisher", run: {
            let relay = PassthroughSubject<Int, Never>()
            let c = relay.sink { _ in }
            let link = [1, 2].publisher.subscribe(relay)
            return [c, link, relay]
        }, expected: [
            "PassthroughSubject<-Sink finished req=unlimited values=2",
            "  Sequence<-Subject finished req=unlimited values=2",
        ]),
        ShapeCase(name: "notification center", run: {
            let center = NotificationCenter()
            let name = Notification.Name("pipescope.test")
            let c = center.ocombine.publisher(for: name).sink { _ in }
            center.post(name: name, object: nil)
            return [c, center]
        }, expected: [
            "NotificationCenter.Publisher<-Sink active req=unlimited values=1",
        ]),
    ]
}
