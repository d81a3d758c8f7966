import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// `repeated-work` on real pipelines: one cold publisher subscribed twice at once, each
/// subscription running its own request; and the shapes that share one request, which
/// must stay quiet.
final class RepeatedWorkLintTests: RecordedProbeTestCase {
    /// Promises handed out by the requests, kept so that they are in flight.
    private let requests = PendingRequests()

    private func repeated() -> [Lint] { lints().filter { $0.kind == .repeatedWork } }

    private func site(_ id: NodeID) -> String {
        probe.graph.location(of: id).map { " (subscribed at \($0.location.short))" } ?? ""
    }

    /// The case: two `map`s off one `Deferred { Future }`, so every refresh makes
    /// two requests. Named on the second subscription, naming the first; it stays once
    /// both requests have answered (they ran at once).
    func testTwoMapsOffOneDeferredAreNamedWithBothSites() throws {
        let requests = self.requests
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }
        var kept: [AnyCancellable] = []
        request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        request.map { $0 * 2 }.sink { _ in }.store(in: &kept)
        XCTAssertEqual(requests.promises.count, 2, "the request ran twice")
        recorder.flush()
        let deferred = probe.graph.nodes.values.filter { $0.operatorName == "Deferred" }.map(\.id).sorted()
        XCTAssertEqual(deferred.count, 2)
        // Locations are symbolized on the probe's own thread and follow the stages: poll
        // for both, with a deadline, before the messages that name them are compared.
        let deadline = Date().addingTimeInterval(20)
        while deferred.contains(where: { probe.graph.location(of: $0) == nil }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            recorder.flush()
        }
        XCTAssertEqual(Set(deferred.compactMap { probe.graph[$0]?.publisher }).count, 1, "one publisher")
        XCTAssertEqual(probe.graph.samePublisher(as: deferred[1]), [deferred[0]])
        let expected = [Lint(kind: .repeatedWork, node: deferred[1], message:
            "#\(deferred[1]) Deferred\(site(deferred[1])) subscribes the same Deferred as #\(deferred[0])"
            + "\(site(deferred[0])), which still runs: each subscription runs its own Future, so the work is "
            + "done twice. Subscribe once, or `.share()` the publisher where it is made so that both read one "
            + "subscription.")]
        XCTAssertEqual(repeated(), expected)
        requests.fulfil()
        XCTAssertEqual(repeated(), expected, "they ran at once: still so once both answered")
        XCTAssertEqual(lints(linter: Linter(allowed: [.repeatedWork])).filter { $0.kind == .repeatedWork }, [],
                       "-A repeated-work")
    }

    /// The correct version: `share()` where the request is made; one request, no lint.
    func testOneSharedDeferredIsNot() {
        let requests = self.requests
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }.share()
        var kept: [AnyCancellable] = []
        request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        request.map { $0 * 2 }.sink { _ in }.store(in: &kept)
        XCTAssertEqual(requests.promises.count, 1)
        XCTAssertEqual(lints(), [])
        requests.fulfil()
        XCTAssertEqual(lints(), [])
    }

    /// Behind `eraseToAnyPublisher()`: the box is the publisher both subscribe.
    func testOneErasedDeferredSubscribedTwiceIsNamed() throws {
        let requests = self.requests
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }.eraseToAnyPublisher()
        var kept: [AnyCancellable] = []
        request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        request.filter { $0 > 0 }.sink { _ in }.store(in: &kept)
        XCTAssertEqual(requests.promises.count, 2)
        let found = repeated()
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first.flatMap { probe.graph[$0.node]?.operatorName }, "AnyPublisher")
        XCTAssertTrue(found.first?.message.contains("runs its own Future") == true, found.first?.message ?? "")
        requests.fulfil()
    }

    /// An inspector that attaches after both requests ended loads them from a snapshot,
    /// ended: the pair still ran at the same time, and is still named.
    func testAPairThatEndedBeforeASnapshotIsNamedFromIt() throws {
        let requests = self.requests
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }.eraseToAnyPublisher()
        var kept: [AnyCancellable] = []
        request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        request.filter { $0 > 0 }.sink { _ in }.store(in: &kept)
        requests.fulfil()
        XCTAssertEqual(repeated().count, 1)
        var loaded = Graph()
        loaded.load(probe.graph.snapshot())
        let fromSnapshot = Linter().lints(loaded, now: Int64(Date().timeIntervalSince1970 * 1e9))
            .filter { $0.kind == .repeatedWork }
        XCTAssertEqual(fromSnapshot.map(\.message), repeated().map(\.message))
    }

    /// One `Future` subscribed twice runs its closure once and shares the result.
    func testOneFutureSubscribedTwiceIsNot() {
        let requests = self.requests
        let future = Future<Int, Never> { requests.promises.append($0) }
        let erased = future.eraseToAnyPublisher()
        var kept: [AnyCancellable] = []
        future.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        future.map { $0 * 2 }.sink { _ in }.store(in: &kept)
        Deferred { future }.map { $0 }.sink { _ in }.store(in: &kept)
        erased.sink { _ in }.store(in: &kept)
        erased.sink { _ in }.store(in: &kept)
        XCTAssertEqual(requests.promises.count, 1)
        XCTAssertEqual(lints().filter { $0.kind != .unretainedCancellable }, [])
        requests.fulfil()
    }

    /// Two `Deferred` made separately (each caller builds its own request) are two
    /// publishers: no single one to share.
    func testTwoDeferredMadeSeparatelyAreNot() {
        let requests = self.requests
        func load(_ n: Int) -> Deferred<Future<Int, Never>> {
            Deferred { Future<Int, Never> { promise in requests.promises.append({ _ in promise(.success(n)) }) } }
        }
        var kept: [AnyCancellable] = []
        load(1).map { $0 + 1 }.sink { _ in }.store(in: &kept)
        load(2).map { $0 * 2 }.sink { _ in }.store(in: &kept)
        XCTAssertEqual(requests.promises.count, 2)
        XCTAssertEqual(lints(), [])
        requests.fulfil()
    }

    /// One after the other (the first answered before the second subscribed): never at once.
    func testSubscriptionsOneAfterTheOtherAreNot() {
        let requests = self.requests
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }
        var kept: [AnyCancellable] = []
        request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
        requests.fulfil()
        request.map { $0 * 2 }.sink { _ in }.store(in: &kept)
        XCTAssertEqual(lints(), [])
        requests.fulfil()
    }

    /// A `flatMap` subscribing the request once per value is its own design (one site),
    /// even with two in flight.
    func testAFlatMapsInnerSubscriptionsAreNot() {
        let requests = self.requests
        let request = Deferred { Future<Int, Never> { requests.promises.append($0) } }
        let refresh = PassthroughSubject<Void, Never>()
        let c = refresh.flatMap { request }.sink { _ in }
        refresh.send()
        refresh.send()
        XCTAssertEqual(requests.promises.count, 2)
        XCTAssertEqual(lints(), [])
        requests.fulfil()
        c.cancel()
    }
}

/// Promises of requests in flight, fulfilled by the test.
final class PendingRequests: @unchecked Sendable {
    var promises: [(Result<Int, Never>) -> Void] = []

    func fulfil() {
        let pending = promises
        promises = []
        for promise in pending { promise(.success(1)) }
    }
}
