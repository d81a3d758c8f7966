@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import XCTest

/// The identity the tap records for the publisher a stage was subscribed to
/// (``PublisherIdentity``): one for copies of one publisher, another for a publisher made
/// separately, none for most operators; read without a copy or a retain, and the
/// object's memory held (not it) while the stage lives.
final class PublisherIdentityTests: XCTestCase {
    private var probe: Probe!

    override func setUp() {
        probe = Probe()
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
        probe = nil
    }

    private func stages(_ name: String) -> [NodeSummary] {
        probe.flush()
        return probe.graph.nodes.values.filter { $0.operatorName == name }.sorted { $0.id < $1.id }
    }

    func testTheRuleIsWorkedOutFromTheTypesLayout() {
        XCTAssertEqual(PublisherIdentity.of(Future<Int, Never>.self), .reference(offset: 0))
        XCTAssertEqual(PublisherIdentity.of(PassthroughSubject<Int, Never>.self), .reference(offset: 0))
        XCTAssertEqual(PublisherIdentity.of(AnyPublisher<Int, Never>.self), .erased)
        XCTAssertEqual(PublisherIdentity.of(Deferred<Just<Int>>.self), .closure(offset: 0))
        XCTAssertEqual(PublisherIdentity.of(Published<Int>.Publisher.self), .reference(offset: 0))
        XCTAssertEqual(PublisherIdentity.of(Publishers.Map<Just<Int>, Int>.self), .none, "an upstream and a closure")
        XCTAssertEqual(PublisherIdentity.of(Just<Int>.self), .none, "a plain value")
    }

    func testCopiesShareAnIdentityAndSeparatePublishersDoNot() {
        let future = Future<Int, Never> { _ in }
        let erased = future.eraseToAnyPublisher()
        let copy = erased
        let other = future.eraseToAnyPublisher()
        let deferred = Deferred { future }
        var kept: [AnyCancellable] = []
        future.sink { _ in }.store(in: &kept)
        future.map { $0 }.sink { _ in }.store(in: &kept)
        erased.sink { _ in }.store(in: &kept)
        copy.sink { _ in }.store(in: &kept)
        other.sink { _ in }.store(in: &kept)
        deferred.sink { _ in }.store(in: &kept)
        let deferredCopy = deferred
        deferredCopy.sink { _ in }.store(in: &kept)
        Deferred { future }.sink { _ in }.store(in: &kept)
        let futures = stages("Future")
        XCTAssertEqual(futures.count, 5, "two direct, and one under each Deferred")
        XCTAssertEqual(Set(futures.map(\.publisher)), [UInt64(UInt(bitPattern: ObjectIdentifier(future)))])
        let boxes = stages("AnyPublisher").map(\.publisher)
        XCTAssertEqual(boxes.count, 3)
        XCTAssertEqual(boxes[0], boxes[1], "a copy of one AnyPublisher: its box")
        XCTAssertNotEqual(boxes[0], boxes[2], "erased again: another box")
        let deferreds = stages("Deferred").map(\.publisher)
        XCTAssertEqual(deferreds.count, 3)
        XCTAssertEqual(deferreds[0], deferreds[1], "a copy of one Deferred: its closure's context")
        XCTAssertNotEqual(deferreds[0], deferreds[2], "another Deferred, made by another line")
        XCTAssertFalse(deferreds.contains(0))
        XCTAssertEqual(stages("Map").map(\.publisher), [0])
        XCTAssertEqual(stages("AnyPublisher").map(\.subjectSource), [false, false, false])
        withExtendedLifetime(kept) {}
    }

    /// A subject, and a subject behind `eraseToAnyPublisher()` (whose box subscribes it
    /// out of the hook's sight), are the program's input.
    func testSubjectsAndErasedSubjectsAreSubjectSources() {
        let subject = PassthroughSubject<Int, Never>()
        let current = CurrentValueSubject<Int, Never>(0)
        var kept: [AnyCancellable] = []
        subject.sink { _ in }.store(in: &kept)
        subject.eraseToAnyPublisher().map { $0 }.sink { _ in }.store(in: &kept)
        current.eraseToAnyPublisher().sink { _ in }.store(in: &kept)
        Just(1).eraseToAnyPublisher().sink { _ in }.store(in: &kept)
        XCTAssertEqual(stages("PassthroughSubject").map(\.subjectSource), [true])
        XCTAssertEqual(stages("AnyPublisher").map(\.subjectSource), [true, true, false])
        XCTAssertEqual(stages("Map").map(\.subjectSource), [false])
        withExtendedLifetime(kept) {}
    }

    /// While a stage lives, the memory of its publisher's object is held (so no publisher
    /// made later takes its address); it is given back when the stage ends, and the
    /// object's deinit runs when it would without the tap.
    func testThePublishersMemoryIsHeldWhileItsStageLivesAndNoLonger() {
        let future = Future<Int, Never> { _ in }
        let before = _getUnownedRetainCount(future)
        let c = future.sink { _ in }
        XCTAssertEqual(_getUnownedRetainCount(future), before + 1, "held while the stage lives")
        c.cancel()
        XCTAssertEqual(_getUnownedRetainCount(future), before, "given back when it ends")
    }
}
