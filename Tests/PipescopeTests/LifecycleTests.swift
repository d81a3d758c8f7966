import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeWire
import XCTest

/// Owners (CancellableBag), tasks tied to them, contracts and names, on real OpenCombine
/// pipelines: what the program does, and what the inspector is told.
final class LifecycleTests: RecordedProbeTestCase {

    private var now: Int64 { Int64(Date().timeIntervalSince1970 * 1e9) }

    private func roots(named name: String) -> [NodeSummary] {
        probe.graph.roots.compactMap { probe.graph[$0] }.filter { $0.operatorName == name }
    }

    // MARK: - Owners

    /// `store(in: bag)` claims the pipeline it follows, not every earlier one on the
    /// thread: a sink whose AnyCancellable was dropped, or kept in a Set, is not the bag's.
    func testStoreClaimsOnlyThePipelineItFollows() {
        let subject = PassthroughSubject<Int, Never>()
        var elsewhere = Set<AnyCancellable>()
        subject.map { $0 * 2 }.sink { _ in }.store(in: &elsewhere)
        _ = subject.filter { $0 > 0 }.sink { _ in }  // forgotten
        let bag = CancellableBag("FeedModel")
        subject.sink { _ in }.store(in: bag)
        recorder.flush()
        let graph = probe.graph
        let byOperator = Dictionary(graph.roots.compactMap { graph[$0] }.map { ($0.operatorName, $0) },
                                    uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byOperator["PassthroughSubject"].flatMap { graph.owner(of: $0.id) }?.name, "FeedModel")
        XCTAssertNil(byOperator["Map"]?.ownerID, "kept in a Set, not in the bag")
        XCTAssertNil(byOperator["Filter"]?.ownerID, "dropped, not in the bag")
        XCTAssertEqual(lints().filter { $0.kind == .unretainedCancellable }.compactMap { graph[$0.node]?.operatorName },
                       ["Filter"], "the forgotten sink is still flagged")
        withExtendedLifetime((bag, elsewhere)) {}
    }

    func testAReleasedOwnerCancelsEverythingByOwnerAndIsShownAsAGroup() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [String] = []
        var bag: CancellableBag? = CancellableBag("ProfileModel")
        subject.map { "a\($0)" }.sink { received.append($0) }.store(in: bag!)
        bag!.collect {
            subject.filter { $0 > 1 }.sink { received.append("b\($0)") }
            subject.sink { received.append("c\($0)") }
        }
        let outsider = subject.sink { _ in }  // not in the bag
        subject.send(2)
        XCTAssertEqual(received.sorted(), ["a2", "b2", "c2"])
        XCTAssertEqual(bag!.count, 2)

        bag = nil
        subject.send(3)
        XCTAssertEqual(received.sorted(), ["a2", "b2", "c2"], "nothing after the owner went")
        recorder.flush()
        let graph = probe.graph
        let owned = graph.roots.compactMap { graph[$0] }.filter { $0.ownerID != nil }
        XCTAssertEqual(owned.map(\.operatorName), ["Map", "Filter", "PassthroughSubject"])
        XCTAssertTrue(owned.allSatisfy { graph.owner(of: $0.id)?.name == "ProfileModel" })
        XCTAssertTrue(owned.allSatisfy { $0.status == .cancelled && $0.cause == .owner }, "\(owned.map { ($0.status, $0.cause) })")
        let ownerID = owned[0].ownerID!
        XCTAssertNotNil(graph.owners[ownerID]?.releasedNanos)

        // In the tree: one heading, the three pipelines under it, the outsider alone.
        let rows = graph.rows(collapsed: [])
        XCTAssertEqual(rows.filter { $0.ownerHeader != nil }.map { $0.ownerHeader?.name }, ["ProfileModel"])
        let heading = rows.firstIndex { $0.ownerHeader != nil }!
        XCTAssertEqual(rows[heading + 1].depth, 1)
        XCTAssertEqual(lints(), [], "a bag's release is not an unretained sink, and nothing outlived it")
        withExtendedLifetime(outsider) {}
    }

    func testPruningKeepsALongLivedOwnerBounded() {
        let bag = CancellableBag("Poller")
        var delivered = 0
        for i in 0..<10_000 {
            Just(i).sink { _ in delivered += 1 }.store(in: bag)
        }
        XCTAssertEqual(delivered, 10_000)
        XCTAssertLessThanOrEqual(bag.count, CancellableBag.minimumPrune,
                                 "finished subscriptions are pruned (held \(bag.count) of 10,000)")
        // Live ones are kept.
        let subject = PassthroughSubject<Int, Never>()
        for _ in 0..<100 { subject.sink { _ in }.store(in: bag) }
        for i in 0..<1_000 { Just(i).sink { _ in }.store(in: bag) }
        XCTAssertGreaterThanOrEqual(bag.count, 100)
        XCTAssertLessThanOrEqual(bag.count, 100 * 2 + CancellableBag.minimumPrune)
    }

    // MARK: - Tasks

    func testATiedTaskIsCancelledWithItsOwnerAndSeesIt() async throws {
        let running = expectation(description: "running")
        let stopped = expectation(description: "observed the cancel")
        var bag: CancellableBag? = CancellableBag("Screen")
        let task = Task {
            running.fulfill()
            while !Task.isCancelled { try? await Task.sleep(nanoseconds: 5_000_000) }
            stopped.fulfill()
        }
        task.eraseToAnyCancellable(name: "poller").store(in: bag!)
        await fulfillment(of: [running], timeout: 30)
        bag = nil
        await fulfillment(of: [stopped], timeout: 30)
        recorder.flush()
        let poller = try XCTUnwrap(roots(named: "poller").first)
        XCTAssertEqual(poller.status, .cancelled)
        XCTAssertEqual(poller.cause, .owner)
        XCTAssertEqual(probe.graph.owner(of: poller.id)?.name, "Screen")
        XCTAssertFalse(lints().contains { $0.kind == .ownerLeak }, "tied: no leak")
    }

    func testATaskThatOutlivesItsOwnerIsAnOwnerLeak() async throws {
        var bag: CancellableBag? = CancellableBag("Screen")
        let task = Task {
            while !Task.isCancelled { try? await Task.sleep(nanoseconds: 5_000_000) }
        }
        bag!.watch(task, name: "feed")
        bag = nil
        let found = lints().filter { $0.kind == .ownerLeak }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first.flatMap { probe.graph[$0.node]?.operatorName }, "feed")
        XCTAssertTrue(found.first?.message.contains("still active after its owner Screen was released") == true)

        task.cancel()
        _ = await task.result
        // The watcher, a task of its own, records the end when it next runs.
        let deadline = Date().addingTimeInterval(30)
        while lints().contains(where: { $0.kind == .ownerLeak }), Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        XCTAssertFalse(lints().contains { $0.kind == .ownerLeak }, "once it ends, it no longer leaks")
    }

    // MARK: - Contracts and names

    private func violations() -> [String] {
        lints().filter { $0.kind == .contractViolation }.compactMap { lint in
            probe.graph[lint.node].map { "\($0.operatorName): \(lint.message)" }
        }
    }

    func testBrokenPromisesAreReportedOnTheirStage() {
        let subject = PassthroughSubject<Int, Never>()
        var cancellables: [AnyCancellable] = []
        subject.pipescopeExpect(.immediate).sink { _ in }.store(in: &cancellables)
        [1, 2].publisher.pipescopeExpect(.single).sink { _ in }.store(in: &cancellables)
        Empty<Int, Never>().pipescopeExpect(.single, name: "lookup").sink { _ in }.store(in: &cancellables)
        [1, 2].publisher.pipescopeExpect(.maybe).sink { _ in }.store(in: &cancellables)
        XCTAssertEqual(violations().sorted(), [
            "expect immediate: expected immediate: subscribed with demand, but nothing arrived during subscribe. "
                + "Fix the publisher, or declare the contract it really keeps.",
            "expect maybe: expected maybe: a second value arrived. Fix the publisher, or declare the contract it really keeps.",
            "expect single: expected single: a second value arrived. Fix the publisher, or declare the contract it really keeps.",
            "lookup: expected single: finished without a value. Fix the publisher, or declare the contract it really keeps.",
        ])
    }

    func testKeptPromisesAreQuietAndValuesPassUnchanged() {
        var got: [Int] = []
        var cancellables: [AnyCancellable] = []
        Just(1).pipescopeExpect(.immediate).sink { got.append($0) }.store(in: &cancellables)
        Just(2).pipescopeExpect(.single).sink { got.append($0) }.store(in: &cancellables)
        Empty<Int, Never>().pipescopeExpect(.maybe).sink { got.append($0) }.store(in: &cancellables)
        Fail<Int, URLError>(error: URLError(.timedOut)).pipescopeExpect(.single).sink(receiveCompletion: { _ in },
                                                                                    receiveValue: { got.append($0) })
            .store(in: &cancellables)
        XCTAssertEqual(got, [1, 2])
        XCTAssertEqual(violations(), [])
    }

    func testANamedPipelineShowsItsName() {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.pipescopeName("profile image").sink { _ in }
        subject.send(1)
        recorder.flush()
        let root = probe.graph.roots.compactMap { probe.graph[$0] }.first
        XCTAssertEqual(root?.operatorName, "profile image")
        XCTAssertEqual(root?.publisherType, "Map<PassthroughSubject<Int, Never>, Int>", "the type of what it names")
        XCTAssertEqual(root?.values, 1)
        XCTAssertEqual(root?.children.compactMap { probe.graph[$0]?.operatorName }, ["Map"])
        withExtendedLifetime(c) {}
    }
}
