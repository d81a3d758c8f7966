import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeClient
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Each lint on a real OpenCombine pipeline, with a near miss that must stay quiet.
final class LintTests: RecordedProbeTestCase {
    private func operatorOf(_ lint: Lint) -> String? { probe.graph[lint.node]?.operatorName }

    func testAnUnretainedSinkIsNamed() {
        let subject = PassthroughSubject<Int, Never>()
        _ = subject.map { $0 }.sink { _ in }
        let found = lints()
        XCTAssertEqual(found.map(\.kind), [.unretainedCancellable])
        XCTAssertEqual(found.first.flatMap(operatorOf), "Map", "on the root stage")
    }

    func testARetainedSinkCancelledByTheUserIsNot() {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 }.sink { _ in }
        c.cancel()
        XCTAssertEqual(lints(), [])
    }

    func testAPublisherThatIgnoresDemandIsNamed() {
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        RudePublisher(count: 3).subscribe(subscriber)
        let found = lints()
        XCTAssertEqual(found.map(\.kind), [.demandViolation])
        XCTAssertTrue(found.first?.message.contains("3 values delivered but only 1 requested") == true)
    }

    func testAPublisherThatHonoursDemandIsNot() {
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        [1, 2, 3].publisher.subscribe(subscriber)
        XCTAssertEqual(lints(), [])
    }

    func testAValueAfterTheEndIsNamed() {
        let subscriber = CountingSubscriber(initial: 10, perValue: 0)
        RudePublisher(count: 1, valueAfterFinish: true).subscribe(subscriber)
        XCTAssertEqual(lints().map(\.kind), [.afterTerminal])
    }

    func testAPublisherThatStopsAtItsEndIsNot() {
        let subscriber = CountingSubscriber(initial: 10, perValue: 0)
        RudePublisher(count: 1, valueAfterFinish: false).subscribe(subscriber)
        XCTAssertEqual(lints(), [])
    }

    func testAStalledStageIsNamedAfterItsThreshold() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CountingSubscriber(initial: 1, perValue: 0)
        let relay = PassthroughSubject<Int, Never>()
        let link = subject.subscribe(relay)
        relay.map { $0 }.subscribe(subscriber)
        subject.send(1)
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        XCTAssertEqual(lints(now: now), [], "not yet: under the threshold")
        let later = lints(now: now + 10_000_000_000)
        XCTAssertEqual(later.map(\.kind), [.stalled])
        XCTAssertEqual(later.first.flatMap(operatorOf), "Map", "held on demand: on the root, whose subscriber holds it")
        XCTAssertTrue(later.first?.message.hasPrefix("held 10s by subscriber CountingSubscriber, which has no outstanding "
                                                     + "demand on #") == true, later.first?.message ?? "")
        XCTAssertTrue(later.first?.message.contains("; its last request was .max(1). ") == true, later.first?.message ?? "")
        XCTAssertEqual(lints(now: now + 10_000_000_000, linter: Linter(allowed: [.stalled])), [], "-A stalled")
        withExtendedLifetime(link) {}
    }

    /// A subject nobody has sent to is the program's input (an action stream, a button):
    /// idle, through the operators between it and the sink, never `stalled`. (Behind
    /// `eraseToAnyPublisher()` the subject is no stage of its own: OpenCombine's box
    /// subscribes it without the hook, so its stage is the `AnyPublisher`, and nothing
    /// recorded yet tells it from a `Future`'s box. Issue #41 keeps that case.)
    func testASubjectNobodySendsToIsIdleBehindOperators() {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "pipescope.test.receive-on")
        var kept: [AnyCancellable] = []
        subject.share().sink { _ in }.store(in: &kept)
        subject.receive(on: queue.ocombine).sink { _ in }.store(in: &kept)
        subject.map { $0 + 1 }.filter { $0 > 0 }.eraseToAnyPublisher().sink { _ in }.store(in: &kept)
        subject.flatMap { Just($0) }.sink { _ in }.store(in: &kept)
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let later = lints(now: now + 60_000_000_000)
        XCTAssertEqual(later.filter { $0.kind == .stalled }.map { operatorOf($0) ?? "?" }, [], "\(later.map(\.message))")
        withExtendedLifetime(kept) {}
    }

    func testAFutureThatNeverAnswersIsNamed() {
        let c = Future<Int, Never> { _ in }.sink { _ in }
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        XCTAssertEqual(lints(now: now), [])
        // Waiting on the Future is a stalled pipeline too, on the same stage.
        XCTAssertEqual(lints(now: now + 60_000_000_000).map(\.kind), [.stalled, .neverCompletes])
        XCTAssertEqual(lints(now: now + 60_000_000_000, linter: Linter(allowed: [.neverCompletes])).map(\.kind),
                       [.stalled], "-A never-completes")
        c.cancel()
    }

    func testAStalledPipelineNamesTheStageHoldingItsWaitWithWhereAndHowLong() throws {
        let c = Future<Int, Never> { _ in }.map { $0 }.sink { _ in }
        var linter = Linter(allowed: [.neverCompletes])
        linter.stalledAfter = 5
        recorder.flush()
        let future = try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == "Future" })
        let map = try XCTUnwrap(future.parent)
        let asked = try XCTUnwrap(future.recentRequests.first?.time)
        XCTAssertEqual(lints(now: asked + 5_000_000_000, linter: linter), [], "at the threshold, not over it")
        let found = lints(now: asked + 41_000_000_000, linter: linter)
        let location = probe.graph.location(of: future.id).map { " (\($0.location.short))" } ?? ""
        XCTAssertEqual(found, [Lint(kind: .stalled, node: future.id, message:
            "#\(future.id) Future\(location) has sent nothing for 41s while pipeline #\(map) has demand outstanding. "
            + "Make it send (fulfil the promise, send to the subject, start the timer), or cancel the pipeline.")])
        c.cancel()
    }

    func testLintsWorkOnARecording() throws {
        let subject = PassthroughSubject<Int, Never>()
        _ = subject.sink { _ in }
        let batch = probe.flush()
        var welcome = ServerMessage()
        welcome.welcome.processName = "app"
        welcome.welcome.protocolVersion = ProtocolVersion.current
        var writer = WireStreamWriter()
        let bytes = RecordingFormat.magic + welcome.framed() + writer.message(batch).framed()
        var graph = Graph()
        var reader = WireStreamReader()
        for m in try RecordingFormat.read(bytes).messages {
            if case .batch(let b) = try Message(m, reader: &reader) { graph.fold(b) }
        }
        XCTAssertEqual(Linter().lints(graph, now: batch.events.last!.time).map(\.kind), [.unretainedCancellable])
    }
}
