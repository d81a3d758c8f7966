import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeLocations
@testable import PipescopeProbe
import PipescopeClient
import PipescopeGraph
import PipescopeLiveTestSupport
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// A run's findings: every lint raised at any moment, once, judged with that moment's
/// clock, kept after its stage is pruned, the same mistake in the same place counted.
final class FindingCollectorTests: RecordedProbeTestCase {
    private let t0 = BatchBuilder.baseNanos
    private let second: Int64 = 1_000_000_000

    /// Flushes through the recorder into `collector` until every stage has its location;
    /// false if that takes over a minute.
    private func settle(into collector: inout FindingCollector) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        while true {
            collector.fold(recorder.flush())
            guard probe.locator.hasPending else { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            SymbolThread.shared.waitUntilIdle(timeout: left)
        }
    }

    func testSinksDroppedInALoopAreOneFindingWithACountAfterTheirStagesArePruned() throws {
        var collector = FindingCollector(retention: Retention(seconds: 0, maxEndedPipelines: 0, maxEndedInner: 0))
        collector.load(probe.snapshot())
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 1
        for _ in 0..<3 { _ = subject.sink { _ in } }
        XCTAssertTrue(settle(into: &collector), "locations still pending after a minute")
        collector.finish(now: Int64(Date().timeIntervalSince1970 * 1e9))
        // Pruned: the last graph holds none of them, and so no lint.
        XCTAssertEqual(collector.graph.nodes.count, 0)
        XCTAssertEqual(Linter().lints(collector.graph, now: collector.clock), [])
        let findings = collector.findings
        XCTAssertEqual(findings.map(\.kind), [.unretainedCancellable])
        XCTAssertEqual(findings.first?.count, 3)
        XCTAssertEqual(findings.first?.at?.line, line)
        XCTAssertEqual(findings.first?.at?.fileName, "FindingCollectorTests.swift")
        XCTAssertEqual(findings.first?.message,
                       "cancelled as soon as it was made: its AnyCancellable was not kept. "
                           + "Store it (`.store(in: &cancellables)`) for as long as you need the values.")
        // The recording of the same run gives the same finding.
        let check = try RecordingFindings.read(path: recorder.path, linter: Linter())
        XCTAssertEqual(check.findings.map(\.kind), [.unretainedCancellable])
        XCTAssertEqual(check.findings.first?.count, 3)
        XCTAssertEqual(check.findings.first?.at?.line, line)
    }

    func testAKeptSubscriptionIsNoFinding() {
        var collector = FindingCollector()
        collector.load(probe.snapshot())
        let subject = PassthroughSubject<Int, Never>()
        subject.sink { _ in }.store(in: &kept)
        subject.send(1)
        XCTAssertTrue(settle(into: &collector), "locations still pending after a minute")
        collector.finish(now: Int64(Date().timeIntervalSince1970 * 1e9))
        XCTAssertEqual(collector.findings, [])
    }

    /// A Future fulfilled after 40 s was never-completes from 30 s on, and stalled from
    /// 2 s: both are found, though neither holds at the run's end, each raised when its
    /// rule fell due in the gap between the two batches and worded as of then.
    func testLintsThatFellDueBetweenBatchesAreJudgedAtTheirOwnMoment() {
        var first = BatchBuilder(start: t0)
        first.subscribe(1, op: "Future", subscriber: "Sink", location: BatchBuilder.at("Search.swift", 40))
        first.subscription(1)
        first.request(1, .unlimited)
        var second = BatchBuilder(start: t0 + 40 * self.second)
        second.value(1, "42")
        second.finish(1)
        var collector = FindingCollector()
        collector.fold(first.build())
        collector.fold(second.build(sequence: 5))
        collector.finish(now: t0 + 41 * self.second)
        XCTAssertEqual(Linter().lints(collector.graph, now: collector.clock), [])
        let findings = collector.findings
        XCTAssertEqual(findings.map(\.kind), [.stalled, .neverCompletes])
        XCTAssertEqual(findings.map(\.node), [1, 1])
        XCTAssertEqual(findings.map { $0.at?.short }, ["Search.swift:40", "Search.swift:40"])
        // Raised when due: stalled 2 s after the last request, never-completes just past 30 s.
        XCTAssertEqual(findings.map { ($0.raisedNanos - t0) / 1_000_000 }, [2_002, 30_000])
        XCTAssertEqual(findings[1].message,
                       "a one-shot Future still active after 30 s: its promise is never fulfilled, or its upstream never finishes.")
        XCTAssertTrue(findings[0].message.contains("2s"), findings[0].message)
    }

    func testAllowedLintsAreNotFound() {
        var first = BatchBuilder(start: t0)
        first.subscribe(1, op: "Future", subscriber: "Sink")
        first.subscription(1)
        first.request(1, .unlimited)
        var collector = FindingCollector(linter: Linter(allowed: [.stalled]))
        collector.fold(first.build())
        collector.finish(now: t0 + 60 * second)
        XCTAssertEqual(collector.findings.map(\.kind), [.neverCompletes])
        XCTAssertNil(collector.findings.first?.at)
    }

    /// A sink kept in a dictionary entry and replaced (Tokamak's `Fiber.bindProperties`),
    /// its location arriving a batch later, as the symbol thread sends it: judged before
    /// the location, it reads as dropped; once located it is excused, and is no finding.
    /// A dropped one, located the same way, stays one. (Tokamak's suite under
    /// `pipescope check` gave one such false finding, ×4, at Fiber.swift:318.)
    func testAReplacedEntryLocatedABatchLaterIsNoFindingAndADroppedOneStillIs() {
        for replaced in [true, false] {
            var b = BatchBuilder(step: 1_000_000)
            b.subscribe(1, op: "PassthroughSubject", subscriber: "Sink")
            b.subscription(1)
            if replaced { b.subscribe(2, op: "PassthroughSubject", subscriber: "Sink") }  // the entry's successor
            b.cancel(1, cause: .owner)  // the old entry's AnyCancellable released
            if !replaced { b.subscribe(2, op: "PassthroughSubject", subscriber: "Sink") }  // made after: no successor
            b.subscription(2)
            var collector = FindingCollector()
            collector.fold(b.build())
            XCTAssertEqual(Linter().lints(collector.graph, now: collector.clock).map(\.node), [1], "unlocated, it reads as dropped")
            var located = BatchBuilder(start: b.now + second)
            let place = BatchBuilder.at("Fiber.swift", 318, "Fiber.bindProperties()")
            located.batch.locations = [LocatedStage(node: 1, location: place), LocatedStage(node: 2, location: place)]
            located.request(2, Demand.unlimited)
            collector.fold(located.build(sequence: 5))
            collector.finish(now: located.now + second)
            XCTAssertEqual(collector.findings.map(\.kind), replaced ? [] : [.unretainedCancellable], "replaced: \(replaced)")
            XCTAssertEqual(collector.findings.first?.at?.line, replaced ? nil : 318)
        }
    }
}

/// The JUnit report's text: anything a message or a path holds is well-formed XML.
final class FindingsJUnitTests: XCTestCase {
    func testMarkupAndControlCharactersAreEscaped() {
        XCTAssertEqual(FindingsJUnit.escape("a<b>&\"c\" 'd'\n\te\u{1}f\u{FFFE}"),
                       "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;&#10;&#9;e\u{FFFD}f\u{FFFD}")
    }

    func testAFindingWithNoPlaceIsStillACase() {
        let finding = Finding(kind: .neverCompletes, message: "a one-shot Future <x> still active", node: 3, at: nil,
                              raisedNanos: 0, count: 2)
        let xml = FindingsJUnit.render([finding], suite: "a&b.pipescope", ran: [.neverCompletes, .stalled], timestamp: 0)
        XCTAssertEqual(xml, """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="pipescope check" tests="2" failures="1" errors="0" time="0">
              <testsuite name="a&amp;b.pipescope" tests="2" failures="1" errors="0" skipped="0" time="0" timestamp="1970-01-01T00:00:00">
                <testcase classname="pipescope.never-completes" name="never-completes at an unknown place (stage #3)" time="0">
                  <failure type="never-completes" message="a one-shot Future &lt;x&gt; still active (2 stages)">(place unknown): a one-shot Future &lt;x&gt; still active (2 stages)&#10;stage #3</failure>
                </testcase>
                <testcase classname="pipescope.stalled" name="stalled" time="0"/>
              </testsuite>
            </testsuites>

            """)
    }
}
