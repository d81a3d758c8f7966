import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// Screens that each subscribe to the app's event stream, keeping only their own events:
/// the issue's program. `open` stores every new subscription in a bag nobody empties (the
/// mistake); `reopen` cancels the old one first (the fix).
final class PilingScreens {
    let events = PassthroughSubject<Int, Never>()
    var kept: [AnyCancellable] = []
    var current: AnyCancellable?
    /// The line of `open`'s `sink`: where its pipelines are made.
    static let openLine = #line + 3

    func open(screen: Int) {
        events.filter { $0 == screen }.sink { _ in }.store(in: &kept)
    }

    func reopen(screen: Int) {
        current?.cancel()
        current = events.filter { $0 == screen }.sink { _ in }
    }
}

/// `pile-up` on real OpenCombine pipelines: 215 live pipelines from one line while
/// values for other screens keep arriving are one lint, not 215, and no `stalled`; the
/// fixed program gets none.
final class PileUpLintTests: RecordedProbeTestCase {
    /// The issue's scenario, made in a few milliseconds: the window and `--stall-after` are
    /// scaled down to the times recorded, so that 154 of the 215 pipelines are older than
    /// the window and the last 61 within it (as 3.5 minutes at one a second would be at
    /// the default minute), and the values sent last are recent.
    func testPipelinesPilingUpAtOneLineAreOneLintNotStalledOnes() throws {
        let screens = PilingScreens()
        for screen in 0..<215 {
            screens.open(screen: screen)
            // A value for no screen that is open: every filter drops it.
            screens.events.send(-screen)
        }
        // The locations follow the stages, once the probe's symbol thread has looked.
        let deadline = Date() + 30
        recorder.flush()
        while probe.graph.roots.contains(where: { probe.graph[$0]?.location == nil }), Date() < deadline {
            recorder.flush()
        }
        let graph = probe.graph
        let roots = graph.roots.compactMap { graph[$0] }.filter { $0.location?.line == PilingScreens.openLine }
            .sorted { ($0.createdNanos, $0.id) < ($1.createdNanos, $1.id) }
        XCTAssertEqual(roots.count, 215)
        let place = try XCTUnwrap(roots.first?.location)
        XCTAssertEqual(place.fileName, "PileUpLintTests.swift")
        XCTAssertEqual(place.function, "PilingScreens.open(screen:)")
        XCTAssertEqual(PipelineName(root: roots[0].id, in: graph).text,
                       "PilingScreens.open(screen:) → PassthroughSubject → Filter → Sink", "named after the code")
        // The last value reached the 215 subjects' stages over a moment: judged just
        // after it, with `--stall-after` a little longer than that moment, and far
        // shorter than the first screens have waited for a value of their own (were
        // filtered taken for stalled, they would be).
        let lastValues = graph.nodes.values.filter { $0.operatorName == "PassthroughSubject" }.compactMap(\.lastValueNanos)
        XCTAssertEqual(lastValues.count, 215)
        let now = try XCTUnwrap(lastValues.max()) + 100_000
        var linter = Linter()
        linter.pileUpAfter = Double(now - roots[154].createdNanos + 1_000) / 1e9
        linter.stalledAfter = Double(now - lastValues.min()! + 200_000) / 1e9
        XCTAssertLessThan(linter.stalledAfter * 4e9, Double(now - roots[0].createdNanos))
        let found = lints(now: now, linter: linter)
        XCTAssertEqual(found, [Lint(kind: .pileUp, node: roots[0].id, message:
            "215 live pipelines made at PileUpLintTests.swift:\(PilingScreens.openLine) in PilingScreens.open(screen:), "
            + "up 61 in the last \(PileUpRule.window(linter.pileUpAfter)) and none of them ended: their AnyCancellables "
            + "are likely kept in a collection that is never emptied, or never cancelled when the screen or owner goes. "
            + "Cancel the old one before storing a new one (or keep them by key, so the new one replaces the old), and "
            + "cancel them when the owner goes.")])
        XCTAssertEqual(lints(now: now, linter: withAllowed(linter, .pileUp)), [], "-A pile-up")
        // The warnings the inspector keeps tick by tick say the same.
        var warnings = AppState.Warnings()
        warnings.linter = linter
        warnings.refresh(graph, now: now)
        XCTAssertEqual(warnings.lints, found)
        XCTAssertEqual(warnings.groups.map(\.count), [1], "one row in the warnings list")
        // `explain` says it first, then each pipeline: flowing, filtered, not stalled.
        let waits = Waits(graph, now: now, after: linter.stalledAfter)
        let report = WaitReport(graph, waits: waits, lints: linter.lints(graph, now: now, waits: waits))
        let lines = report.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "⚠ pile-up at #\(roots[0].id): " + found[0].message)
        XCTAssertEqual(lines.filter { $0.contains("PilingScreens.open(screen:)") && $0.hasSuffix("  flowing") }.count, 215)
        withExtendedLifetime(screens) {}
    }

    func testCancellingTheOldSubscriptionBeforeMakingANewOneIsNoPileUp() {
        let screens = PilingScreens()
        for screen in 0..<215 {
            screens.reopen(screen: screen)
            screens.events.send(-screen)
        }
        recorder.flush()
        let graph = probe.graph
        let times = graph.nodes.values.map(\.createdNanos).sorted()
        let lastValues = graph.nodes.values.compactMap(\.lastValueNanos)
        let now = (lastValues.max() ?? times.last ?? 0) + 100_000
        var linter = Linter()
        linter.pileUpAfter = Double(now - times[times.count / 2]) / 1e9
        // (Each old one is cancelled by its owner microseconds after it was made, which
        // `unretained-cancellable` takes for a dropped AnyCancellable; in the program the
        // screen reopens seconds apart.)
        XCTAssertEqual(lints(now: now, linter: linter).filter { $0.kind != .unretainedCancellable }, [])
        withExtendedLifetime(screens) {}
    }

    private func withAllowed(_ linter: Linter, _ kind: LintKind) -> Linter {
        var linter = linter
        linter.allowed.insert(kind)
        return linter
    }
}

/// `pile-up`'s thresholds at their defaults, on pipelines made a second apart: how much a
/// place must pile up, and the near misses that stay quiet.
final class PileUpThresholdTests: XCTestCase {
    let second: Int64 = 1_000_000_000
    let here = BatchBuilder.at("Screen.swift", 42, "FeedScreen.open()")

    /// `count` pipelines `Filter → PassthroughSubject` made at `here` a second apart,
    /// the first at `BatchBuilder.baseNanos`; `ended`: those cancelled, at the time given.
    func graph(count: Int, ended: [(index: Int, at: Int64)] = []) -> Graph {
        var b = BatchBuilder(step: 0)
        for i in 0..<count {
            b.now = BatchBuilder.baseNanos + Int64(i) * second
            b.subscribe(NodeID(i * 2 + 1), op: "Filter", subscriber: "Sink", location: here)
            b.subscribe(NodeID(i * 2 + 2), parent: NodeID(i * 2 + 1), op: "PassthroughSubject", subscriber: "Filter")
        }
        for (index, at) in ended.sorted(by: { $0.at < $1.at }) {
            b.now = at
            b.cancel(NodeID(index * 2 + 1))
            b.cancel(NodeID(index * 2 + 2))
        }
        return Graph.folding(b.build())
    }

    func pileUps(_ graph: Graph, at now: Int64) -> [Lint] {
        Linter(allowed: [.stalled]).lints(graph, now: now).filter { $0.kind == .pileUp }
    }

    func testTheIssuesPileUpAtTheDefaultsIsOneLintNamingPlaceCountAndGrowth() {
        // 215 made a second apart, judged a second after the last: 61 made in the minute.
        let now = BatchBuilder.baseNanos + 215 * second
        XCTAssertEqual(pileUps(graph(count: 215), at: now), [Lint(kind: .pileUp, node: 1, message:
            "215 live pipelines made at Screen.swift:42 in FeedScreen.open(), up 60 in the last minute and none of "
            + "them ended: " + PileUpRule.advice)])
    }

    func testTooFewTooYoungOrNotGrowingIsNoPileUp() {
        let base = BatchBuilder.baseNanos
        XCTAssertEqual(pileUps(graph(count: 9), at: base + 70 * second), [], "nine is a handful")
        XCTAssertEqual(pileUps(graph(count: 61), at: base + 61 * second), [], "made over exactly a minute")
        XCTAssertNotEqual(pileUps(graph(count: 62), at: base + 61 * second), [], "made over more than a minute")
        XCTAssertEqual(pileUps(graph(count: 62), at: base + 61 * second + 60 * second + 1), [],
                       "none made in the last minute: the count stopped growing")
    }

    /// Thirty made a second apart and kept: a screen opened thirty times in half a
    /// minute, then no more. Judged at every moment of the two minutes after, it never
    /// grew for longer than the window: no pile-up. (Judged only by "the oldest is older
    /// than a minute and one was made within it", it was one for the 29 s between the
    /// first leaving the window and the last.)
    func testPipelinesMadeWithinOneWindowAreNoPileUpWhenTheyStop() {
        let base = BatchBuilder.baseNanos
        let made = graph(count: 30)
        for s in stride(from: 0, through: 120, by: 1) {
            for extra: Int64 in [0, 1, second / 2] {
                XCTAssertEqual(pileUps(made, at: base + Int64(s) * second + extra), [], "at \(s) s + \(extra) ns")
            }
        }
    }

    /// Twenty rows of a list, each subscribing as it is made, all within a millisecond
    /// and kept while the list is shown: one burst, no pile-up a minute later.
    func testABurstMadeInALoopIsNoPileUp() {
        var b = BatchBuilder(step: 50_000)
        for i in 0..<20 { b.subscribe(NodeID(i + 1), op: "PassthroughSubject", subscriber: "Sink", location: here) }
        let rows = Graph.folding(b.build())
        let base = BatchBuilder.baseNanos
        for at in [base + 60 * second + 1, base + 60 * second + 500_000, base + 61 * second] {
            XCTAssertEqual(pileUps(rows, at: at), [], "at \(at - base) ns")
        }
    }

    func testOneEndedWithinTheWindowIsNoPileUp() {
        let base = BatchBuilder.baseNanos
        let now = base + 100 * second
        XCTAssertEqual(pileUps(graph(count: 100, ended: [(3, base + 50 * second)]), at: now), [],
                       "one cancelled 50 s ago: they do end")
        XCTAssertNotEqual(pileUps(graph(count: 100, ended: [(3, base + 39 * second)]), at: now), [],
                          "ended 61 s ago: outside the window")
    }
}
