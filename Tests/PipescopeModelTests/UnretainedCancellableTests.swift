import Foundation
import OpenCombineDispatch
@preconcurrency import OpenCombine
@testable import PipescopeLocations
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// Kept is not unretained: an `AnyCancellable` kept in a dictionary entry and released when
/// the entry is replaced is not a dropped one; a dropped one still is, however many come
/// from its line.
final class UnretainedCancellableTests: RecordedProbeTestCase {
    /// Keeps one subscription per key and makes it again on every update, as Tokamak 0.11.1's
    /// `Fiber.bindProperties` does (Fiber.swift:318:
    /// `subscriptions[property] = observed.objectWillChange.sink { … }`).
    private final class Fiber: @unchecked Sendable {
        var subscriptions: [String: AnyCancellable] = [:]

        func bind(to subject: PassthroughSubject<Int, Never>) {
            subscriptions["count"] = subject.sink { _ in }
        }
    }

    /// Flushes through the recorder (so the replay sees every batch) until every stage has
    /// its location, which the lint reads; false if that takes over a minute.
    private func settleLocations() -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        while true {
            _ = recorder.flush()
            guard probe.locator.hasPending else { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            SymbolThread.shared.waitUntilIdle(timeout: left)
        }
    }

    /// The roots, oldest first, as (status, cause).
    private func roots() -> [(NodeStatus, CancelCause?)] {
        probe.graph.roots.sorted().compactMap { probe.graph[$0] }.map { ($0.status, $0.cause) }
    }

    func testASinkKeptInADictionaryEntryAndReplacedIsNot() {
        let subject = PassthroughSubject<Int, Never>()
        let fiber = Fiber()
        fiber.bind(to: subject)
        fiber.bind(to: subject)  // releases the first entry's AnyCancellable
        fiber.bind(to: subject)  // and the second's
        XCTAssertTrue(settleLocations(), "locations still pending after a minute")
        XCTAssertEqual(lints(), [])
        // What the lint used to name: each replaced sink was cancelled by its owner, at
        // once and before any value.
        let found = roots()
        XCTAssertEqual(found.map(\.0), [.cancelled, .cancelled, .active])
        XCTAssertEqual(found.map(\.1), [.owner, .owner, nil])
        withExtendedLifetime(fiber) {}
    }

    func testSinksDroppedOneAfterAnotherAtOneLineAreEachNamed() {
        let subject = PassthroughSubject<Int, Never>()
        for _ in 0..<3 {
            _ = subject.sink { _ in }  // released before the next is made
        }
        XCTAssertTrue(settleLocations(), "locations still pending after a minute")
        let found = lints()
        XCTAssertEqual(found.map(\.kind), [.unretainedCancellable, .unretainedCancellable, .unretainedCancellable])
        XCTAssertEqual(Set(found.map(\.node)), Set(probe.graph.roots))
    }

    func testASinkDroppedBesideAKeptOneFromTheSameLineIsNamed() {
        // A dropped sink is released before its successor from the same line is made:
        // only the dropped one is named, not the one kept after it.
        let subject = PassthroughSubject<Int, Never>()
        var kept: [AnyCancellable] = []
        for keep in [false, true] {
            let c = subject.sink { _ in }
            if keep { kept.append(c) }
        }
        XCTAssertTrue(settleLocations(), "locations still pending after a minute")
        let found = lints()
        XCTAssertEqual(found.map(\.kind), [.unretainedCancellable])
        XCTAssertEqual(found.map(\.node), [probe.graph.roots.min()!])
        withExtendedLifetime(kept) {}
    }

    /// A dropped sink behind `delay`: the value the scheduler delivers after the cancel is
    /// no value it got, and the delay sending it then is OpenCombine's race, not the
    /// program's mistake (an app's fire-and-forget analytics call).
    func testADroppedSinkBehindADelayIsNamedOnceAndTheLateValueIsNot() {
        _ = Just(1).delay(for: .milliseconds(5), scheduler: DispatchQueue.global()).sink { _ in }
        XCTAssertTrue(settleLocations(), "locations still pending after a minute")
        let deadline = Date(timeIntervalSinceNow: 10)
        while probe.graph.nodes.values.allSatisfy({ $0.afterEnd == 0 }), Date() < deadline {
            _ = recorder.flush()
            Thread.sleep(forTimeInterval: 0.01)
        }
        let delay = probe.graph.nodes.values.first { $0.operatorName == "Delay" }
        // What the delay had scheduled (its value, its finish, or both: it races the
        // cancel, and a slow machine such as TSan's changes which) arrived after the cancel.
        XCTAssertGreaterThan(delay?.afterEnd ?? 0, 0, "something scheduled arrived after the cancel")
        XCTAssertLessThanOrEqual(delay?.values ?? 0, delay?.afterEnd ?? 0, "no value before the cancel")
        let found = lints()
        XCTAssertEqual(found.map(\.kind), [.unretainedCancellable])
        XCTAssertEqual(found.map(\.node), probe.graph.roots)
    }
}
