import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// The tap must not change the program it observes: no value outlives its callback, no
/// user code runs on Pipescope's threads or under its lock, and code that calls back
/// into Combine from a `deinit`, a `description` or a `receive` behaves as it does
/// without Pipescope. Each test runs with a flush racing it, as the server does.
final class HostSafetyTests: XCTestCase {
    private var probe: Probe?
    private var flusher: Flusher?

    override func tearDown() {
        stopTap()
        Tracked.reset()
    }

    /// `flushing`: a flush races the program, as the server's does. Without it nothing
    /// drains the buffer, so anything the tap kept would stay alive until the test ends.
    private func startTap(flushing: Bool = true) {
        let probe = Probe(bufferCapacity: 1 << 20)
        probe.enable()
        self.probe = probe
        if flushing { flusher = Flusher(probe: probe, intervalMicros: 200) }
    }

    private func stopTap() {
        flusher?.stop()
        flusher = nil
        probe?.disable()
        probe = nil
    }

    /// Runs `work` on `threads` threads at once; fails (instead of hanging the suite)
    /// if they have not all returned by the deadline, which only a deadlock misses.
    private func onThreads(_ threads: Int, file: StaticString = #filePath, line: UInt = #line,
                           _ work: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<threads {
            group.enter()
            Thread {
                Tracked.registerProgramThread()
                work(index)
                group.leave()
            }.start()
        }
        if group.wait(timeout: .now() + 120) == .timedOut {
            XCTFail("the program's threads did not finish: a deadlock", file: file, line: line)
        }
    }

    // MARK: - Lifetimes

    func testValuesWhoseDeinitCancelsAreReleasedAtOnceAndNothingDeadlocks() {
        startTap(flushing: false)
        let subject = PassthroughSubject<Tracked, Never>()
        let sink = subject.map { $0 }.sink { _ in }
        let maxAliveAfterSend = Counter()
        onThreads(1) { _ in
            for _ in 0..<2_000 {
                subject.send(Tracked(onDeinit: .cancelOwnSubscription))
                // Dropped by the sink: released before send returns, tap or not.
                if Tracked.alive > 0 { maxAliveAfterSend.increment() }
            }
        }
        XCTAssertEqual(Tracked.alive, 0, "every value was released")
        XCTAssertEqual(maxAliveAfterSend.value, 0, "no value outlived its send")
        XCTAssertEqual(Tracked.created, 2_000)
        sink.cancel()
    }

    func testAFailureReleasesItsErrorBeforeSendReturns() {
        startTap(flushing: false)
        var failure: String?
        do {
            // A subject keeps its completion for late subscribers: let it go too.
            let subject = PassthroughSubject<Int, TrackedError>()
            let sink = subject.map { $0 }.sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { failure = error.name }
            }, receiveValue: { _ in })
            subject.send(completion: .failure(TrackedError(name: "boom")))
            withExtendedLifetime(sink) {}
        }
        XCTAssertEqual(TrackedError.alive, 0, "the error was released with the pipeline, before any flush")
        XCTAssertEqual(failure, "boom")
        probe?.flush()
        let failed = probe?.graph.nodes.values.filter { $0.status == .failed && $0.error == "boom error" } ?? []
        XCTAssertEqual(failed.count, 2, "the error's text, made on the delivering thread, reached both stages")
    }

    // MARK: - Re-entrancy from the program's code, on several threads

    func testDeinitsAndDescriptionsThatCallBackIntoCombineBehaveAsWithoutTheTap() {
        let without = runReentrantProgram()
        startTap()
        probe?.captureEveryValue(of: Set(1...200))  // every value described: the most calls back
        let with = runReentrantProgram()
        XCTAssertEqual(with, without)
        XCTAssertEqual(with.received, 4 * 500, "every value reached its sink")
        XCTAssertEqual(with.echoes, 4 * 125, "every deinit's send was received")
        XCTAssertEqual(with.alive, 0)
    }

    /// Four threads, each sending values whose `deinit` cancels, sends or subscribes and
    /// whose `description` sends, through a subscriber that cancels itself from inside
    /// `receive(_:)` after a while and a completion that subscribes a new pipeline.
    private func runReentrantProgram() -> ProgramObservation {
        Tracked.reset()
        let received = Counter(), echoes = Counter(), resubscribed = Counter(), afterCancel = Counter()
        onThreads(4) { thread in
            let subject = PassthroughSubject<Tracked, Never>()
            let echo = PassthroughSubject<Int, Never>()
            let echoSink = echo.sink { _ in echoes.increment() }
            // Descriptions send here. Describing runs the program's `description`, so
            // how often it sends depends on the capture policy: not compared.
            let described = PassthroughSubject<Int, Never>()
            let describedSink = described.map { $0 }.sink { _ in }
            let behaviours: [Tracked.Behaviour] = [.cancelOwnSubscription, .send(echo), .subscribe, .none]
            let main = subject.map { $0 }.filter { _ in true }.sink { _ in received.increment() }
            for i in 0..<500 {
                subject.send(Tracked(onDeinit: behaviours[i % 4], describeSendsTo: described))
            }
            main.cancel()

            // Cancels itself from inside receive(_:) on its third value.
            let selfCancelling = SelfCancelling(after: 3)
            let source = PassthroughSubject<Int, Never>()
            source.map { $0 }.subscribe(selfCancelling)
            for i in 0..<10 { source.send(i) }
            afterCancel.add(selfCancelling.received)

            // A completion that subscribes a new pipeline, which completes in turn.
            let finishing = PassthroughSubject<Int, Never>()
            var inner: AnyCancellable?
            let outer = finishing.sink(receiveCompletion: { _ in
                inner = Just(thread).map { $0 + 1 }.sink { _ in resubscribed.increment() }
            }, receiveValue: { _ in })
            finishing.send(completion: .finished)
            withExtendedLifetime((outer, inner, echoSink, describedSink)) {}
        }
        return ProgramObservation(received: received.value, echoes: echoes.value, resubscribed: resubscribed.value,
                                  selfCancelledAt: afterCancel.value, alive: Tracked.alive)
    }

    func testDescriptionsRunOnlyOnTheThreadThatDeliveredTheValue() {
        startTap()
        let subject = PassthroughSubject<Tracked, Never>()
        let sink = subject.map { $0 }.sink { _ in }
        onThreads(3) { _ in
            for _ in 0..<300 { subject.send(Tracked(onDeinit: .none)) }
        }
        XCTAssertGreaterThan(Tracked.descriptions.count, 0, "values were described")
        let elsewhere = Tracked.descriptions.filter { !Tracked.programThreads.contains($0) }
        XCTAssertEqual(elsewhere.count, 0, "descriptions ran on a thread that is not the program's")
        sink.cancel()
    }

    func testReplacingAValueThatCancelsFromInsideADeliveryDoesNotDeadlock() {
        // A value that owns a subscription, kept as the sink's last value by the
        // program itself; replacing it cancels from inside the delivery.
        startTap()
        let subject = PassthroughSubject<Tracked, Never>()
        let holder = Holder()
        let sink = subject.map { $0 }.sink { holder.value = $0 }
        onThreads(4) { _ in
            for _ in 0..<500 { subject.send(Tracked(onDeinit: .cancelOwnSubscription)) }
        }
        holder.value = nil
        XCTAssertEqual(Tracked.alive, 0)
        sink.cancel()
    }
}

/// What a run of the re-entrant program saw, to compare with and without the tap.
struct ProgramObservation: Equatable {
    var received: Int
    var echoes: Int
    var resubscribed: Int
    var selfCancelledAt: Int
    var alive: Int
}

/// A value like a view model: it owns a subscription, and its `deinit` and
/// `description` call back into Combine.
final class Tracked: CustomStringConvertible, @unchecked Sendable {
    enum Behaviour {
        case none
        /// Cancels the AnyCancellable it owns (fires the tap's cancel hook).
        case cancelOwnSubscription
        /// Sends on a subject someone subscribes to.
        case send(PassthroughSubject<Int, Never>)
        /// Subscribes a new pipeline and lets it go.
        case subscribe
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var aliveCount = 0
    nonisolated(unsafe) private static var createdCount = 0
    nonisolated(unsafe) private static var describedOn: [UInt] = []
    nonisolated(unsafe) private static var program = Set<UInt>()

    static var alive: Int { lock.withLock { aliveCount } }
    static var created: Int { lock.withLock { createdCount } }
    /// The threads each description ran on.
    static var descriptions: [UInt] { lock.withLock { describedOn } }
    /// The test program's own threads.
    static var programThreads: Set<UInt> { lock.withLock { program } }
    static func registerProgramThread() { lock.withLock { _ = program.insert(UInt(pthread_self())) } }
    static func reset() { lock.withLock { aliveCount = 0; createdCount = 0; describedOn = []; program = [] } }

    private let behaviour: Behaviour
    private let describeSendsTo: PassthroughSubject<Int, Never>?
    private var owned: AnyCancellable?

    init(onDeinit behaviour: Behaviour, describeSendsTo: PassthroughSubject<Int, Never>? = nil) {
        self.behaviour = behaviour
        self.describeSendsTo = describeSendsTo
        if case .cancelOwnSubscription = behaviour {
            owned = PassthroughSubject<Int, Never>().map { $0 }.sink { _ in }
        }
        Self.lock.withLock { Self.aliveCount += 1; Self.createdCount += 1 }
    }

    var description: String {
        Self.lock.withLock { Self.describedOn.append(UInt(pthread_self())) }
        describeSendsTo?.send(-1)
        return "Tracked"
    }

    deinit {
        switch behaviour {
        case .none: break
        case .cancelOwnSubscription: owned?.cancel()
        case .send(let subject): subject.send(1)
        case .subscribe: _ = Just(1).map { $0 }.sink { _ in }
        }
        Self.lock.withLock { Self.aliveCount -= 1 }
    }
}

final class TrackedError: Error, CustomStringConvertible, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var aliveCount = 0
    static var alive: Int { lock.withLock { aliveCount } }

    let name: String
    init(name: String) {
        self.name = name
        Self.lock.withLock { Self.aliveCount += 1 }
    }
    var description: String { "\(name) error" }
    deinit { Self.lock.withLock { Self.aliveCount -= 1 } }
}

/// Requests unlimited values and cancels its own subscription, from inside
/// `receive(_:)`, when the `after`th arrives.
final class SelfCancelling: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never
    private let after: Int
    private var subscription: (any Subscription)?
    private(set) var received = 0

    init(after: Int) { self.after = after }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        received += 1
        if received == after {
            subscription?.cancel()
            subscription = nil
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}

final class Holder: @unchecked Sendable {
    private let lock = NSLock()
    private var held: Tracked?
    var value: Tracked? {
        get { lock.withLock { held } }
        set {
            let old = lock.withLock { () -> Tracked? in
                defer { held = newValue }
                return held
            }
            withExtendedLifetime(old) {}  // released outside the lock, as a careful program would
        }
    }
}

extension Counter {
    func add(_ n: Int) { for _ in 0..<n { increment() } }
}
