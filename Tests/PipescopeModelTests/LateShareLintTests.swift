import Foundation
@preconcurrency import OpenCombine
import Pipescope
import PipescopeGraph
import PipescopeLiveTestSupport
@testable import PipescopeModel
import XCTest

/// `late-share` on real pipelines: a subscriber that came to a `share()` after its values
/// were sent, and got only the end; and the shapes where sharing works as meant, which
/// must stay quiet.
final class LateShareLintTests: RecordedProbeTestCase {
    private func late() -> [Lint] { lints().filter { $0.kind == .lateShare } }

    /// A profile loaded once and shared by two views, the second subscribing after the
    /// first had it: the second's `Share` is named, naming the first; the first is not.
    func testASecondSubscriberAfterTheValueGetsOnlyTheEndAndIsNamed() {
        let profile = Just("Ada").share()
        var first: [String] = []
        var second: [String] = []
        var finished = 0
        profile.sink { first.append($0) }.store(in: &kept)
        profile.sink(receiveCompletion: { _ in finished += 1 }, receiveValue: { second.append($0) }).store(in: &kept)
        XCTAssertEqual(first, ["Ada"])
        XCTAssertEqual(second, [], "share() replays nothing")
        XCTAssertEqual(finished, 1)
        let shares = stages("Share")
        XCTAssertEqual(shares.count, 2)
        let found = late()
        XCTAssertEqual(found.map(\.node), [stages("Autoconnect")[1].id], "on the late subscription's share")
        XCTAssertEqual(found.first?.message.hasPrefix("subscribed to the share() that #\(shares[0].id)"), true,
                       found.first?.message ?? "none")
        XCTAssertEqual(found.first?.message.contains("had already received its 1 value from and finished, and got no value, only the end: "
                                                     + LateShareRule.advice), true, found.first?.message ?? "none")
    }

    /// A hot stream's share subscribed after the stream finished: named, with the count.
    func testASubscriberAfterASharedStreamFinishedIsNamed() {
        let source = PassthroughSubject<Int, Never>()
        let shared = source.map { $0 * 2 }.share()
        shared.sink { _ in }.store(in: &kept)
        source.send(1)
        source.send(2)
        source.send(completion: .finished)
        shared.sink { _ in }.store(in: &kept)
        let found = late()
        XCTAssertEqual(found.map(\.node), [stages("Autoconnect")[1].id])
        XCTAssertEqual(found.first?.message.contains("had already received its 2 values from and finished"), true)
    }

    /// The demo's shape: a shared request kept as an `AnyPublisher` (no `Share` stage then:
    /// the erased box subscribes the share's autoconnect) and subscribed by a named panel
    /// after the answer: named, naming the header's pipeline.
    func testALateSubscriberThroughAnAnyPublisherIsNamed() {
        let requests = PendingAnswers()
        let shared = Deferred { Future<String, Never> { requests.promises.append($0) } }.share()
        let profile = shared.eraseToAnyPublisher()
        shared.pipescopeName("header").sink { _ in }.store(in: &kept)
        requests.answer("Ada")
        profile.pipescopeName("settings").sink { _ in }.store(in: &kept)
        let found = late()
        XCTAssertEqual(found.map(\.node), [stages("Autoconnect")[1].id])
        let header = stages("header")[0].id
        XCTAssertEqual(found.first?.message.hasPrefix("subscribed to the share() that #\(header)"), true,
                       found.first?.message ?? "none")
    }

    func testSubscribersThatAllCameBeforeTheValuesAreQuiet() {
        let source = PassthroughSubject<Int, Never>()
        let shared = source.share()
        var got: [[Int]] = [[], []]
        shared.sink { got[0].append($0) }.store(in: &kept)
        shared.sink { got[1].append($0) }.store(in: &kept)
        source.send(1)
        source.send(completion: .finished)
        XCTAssertEqual(got, [[1], [1]])
        XCTAssertEqual(late(), [])
    }

    /// Late to a hot stream but given what came after it arrived: sharing as meant.
    func testALateSubscriberThatGetsLaterValuesIsQuiet() {
        let source = PassthroughSubject<Int, Never>()
        let shared = source.share()
        shared.sink { _ in }.store(in: &kept)
        source.send(1)
        var got: [Int] = []
        shared.sink { got.append($0) }.store(in: &kept)
        source.send(2)
        source.send(completion: .finished)
        XCTAssertEqual(got, [2])
        XCTAssertEqual(late(), [])
    }

    /// Late, with nothing sent since: still open, it may yet send; and once the stream
    /// ends with no more values, it missed only what came before it, as a hot stream's
    /// subscriber does (a notifications stream that closes).
    func testALateSubscriberToAnOpenStreamIsQuietWhetherOrNotItEnds() {
        let source = PassthroughSubject<Int, Never>()
        let shared = source.share()
        shared.sink { _ in }.store(in: &kept)
        source.send(1)
        shared.sink { _ in }.store(in: &kept)
        XCTAssertEqual(late(), [])
        source.send(completion: .finished)
        XCTAssertEqual(stages("Share").map(\.status), [.finished, .finished])
        XCTAssertEqual(late(), [])
    }

    /// A share made anew for each load (at whatever address), each loaded once by one
    /// subscriber: no subscriber is late.
    func testEachLoadWithItsOwnShareIsQuiet() {
        for name in ["Ada", "Grace", "Edsger"] {
            let profile = Just(name).share()
            profile.sink { _ in }.store(in: &kept)
        }
        let empty = Empty<String, Never>().share()
        empty.sink { _ in }.store(in: &kept)
        XCTAssertEqual(late(), [])
    }

    /// The subscriber that failed got the failure: what there was.
    func testALateSubscriberGivenAFailureIsQuiet() {
        struct Offline: Error {}
        let source = PassthroughSubject<Int, Offline>()
        let shared = source.share()
        shared.sink(receiveCompletion: { _ in }, receiveValue: { _ in }).store(in: &kept)
        source.send(1)
        source.send(completion: .failure(Offline()))
        shared.sink(receiveCompletion: { _ in }, receiveValue: { _ in }).store(in: &kept)
        XCTAssertEqual(late(), [])
    }

    /// Nothing was sent before the end: the latecomer missed nothing.
    func testALateSubscriberToAShareThatSentNothingIsQuiet() {
        let shared = Empty<Int, Never>().share()
        shared.sink { _ in }.store(in: &kept)
        shared.sink { _ in }.store(in: &kept)
        XCTAssertEqual(late(), [])
    }
}


/// The promises of a shared request, answered when a test says.
final class PendingAnswers: @unchecked Sendable {
    var promises: [(Result<String, Never>) -> Void] = []
    func answer(_ value: String) { for promise in promises { promise(.success(value)) } }
}
