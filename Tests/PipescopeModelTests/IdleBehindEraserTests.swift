import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// A subject reached only through `eraseToAnyPublisher()` is the program's input: idle,
/// never `stalled`. OpenCombine's `AnyPublisher` box calls the subject's
/// `receive(subscriber:)` itself, not `subscribe`, so the subject is no stage of its own;
/// the tap reads from the box's class that it erases one (``NodeSummary/subjectSource``).
final class IdleBehindEraserTests: RecordedProbeTestCase {
    private var later: Int64 { Int64(Date().timeIntervalSince1970 * 1e9) + 60_000_000_000 }

    /// Fluxor's shape (Store.swift, EffectRunner.swift): a store keeps a subject of
    /// actions and hands effects `actions.eraseToAnyPublisher()`; each effect filters for
    /// its action and flatMaps it to a request. Nobody has dispatched yet.
    func testEffectsWaitingForActionsBehindAnEraserAreIdle() throws {
        let store = EffectStore()
        store.register { actions in
            actions.filter { $0 == .fetch }.flatMap { _ in Future<EffectAction, Never> { $0(.success(.loaded)) } }
                .eraseToAnyPublisher()
        }
        store.register { actions in
            actions.compactMap { $0 == .loaded ? EffectAction.save : nil }.eraseToAnyPublisher()
        }
        let found = lints(now: later)
        XCTAssertEqual(found.filter { $0.kind == .stalled }.map(\.message), [])
        recorder.flush()
        let erased = probe.graph.nodes.values.filter { $0.operatorName == "AnyPublisher" && $0.children.isEmpty }
        XCTAssertEqual(erased.count, 2, "the subject is no stage: each effect's source is its AnyPublisher")
        XCTAssertEqual(erased.map(\.subjectSource), [true, true])
        XCTAssertEqual(Set(erased.map(\.publisher)).count, 1, "both from the one erased publisher the store keeps")
        withExtendedLifetime(store) {}
    }

    /// A `CurrentValueSubject` behind the eraser too, with nothing between it and the sink.
    func testACurrentValueSubjectBehindAnEraserIsIdle() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let c = subject.eraseToAnyPublisher().sink { _ in }
        XCTAssertEqual(lints(now: later).filter { $0.kind == .stalled }.map(\.message), [])
        c.cancel()
    }

    /// A real source that never sends, behind the same eraser, is still stalled: a
    /// `Future` nobody fulfils is no input of the program's.
    func testAFutureNeverFulfilledBehindAnEraserIsStalled() throws {
        let c = Future<Int, Never> { _ in }.eraseToAnyPublisher().filter { $0 > 0 }.sink { _ in }
        let found = lints(now: later, linter: Linter(allowed: [.neverCompletes]))
        recorder.flush()
        let erased = try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == "AnyPublisher" })
        XCTAssertFalse(erased.subjectSource)
        XCTAssertEqual(found.map(\.kind), [.stalled])
        XCTAssertEqual(found.first?.node, erased.id)
        XCTAssertTrue(found.first?.message.contains("Make it send") == true, found.first?.message ?? "")
        c.cancel()
    }
}

enum EffectAction: Equatable { case fetch, loaded, save }

/// A store in Fluxor's shape: one subject of actions, and effects that each subscribe to it
/// through `eraseToAnyPublisher()` and dispatch what they produce.
final class EffectStore: @unchecked Sendable {
    private let subject = PassthroughSubject<EffectAction, Never>()
    /// What effects read: the subject, erased so that they cannot send to it.
    private lazy var actions = subject.eraseToAnyPublisher()
    private var effects: [AnyCancellable] = []
    private(set) var dispatched: [EffectAction] = []

    func register(_ effect: (AnyPublisher<EffectAction, Never>) -> AnyPublisher<EffectAction, Never>) {
        effect(actions).sink { [weak self] in self?.dispatch($0) }.store(in: &effects)
    }

    func dispatch(_ action: EffectAction) {
        dispatched.append(action)
        subject.send(action)
    }
}
