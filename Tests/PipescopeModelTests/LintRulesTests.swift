import Foundation
import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// The lints as values (``LintRules/all``): one rule per kind and per file, `-A` and its
/// error made from the rules, and each rule that reads the clock saying when its lint
/// first appears.
final class LintRulesTests: XCTestCase {
    let t0 = BatchBuilder.baseNanos
    let second: Int64 = 1_000_000_000

    // MARK: - One rule per kind, one file per rule

    func testEveryKindHasExactlyOneRule() {
        let kinds = LintRules.all.map { $0.kind }
        XCTAssertEqual(Set(kinds).count, kinds.count, "two rules share a kind: \(kinds)")
        XCTAssertEqual(LintKind.allCases, kinds)
        for kind in LintKind.allCases {
            XCTAssertEqual(LintRules.all.filter { $0.kind == kind }.count, 1, "\(kind)")
        }
        // The spellings JSON, exports, golden screens and users' `-A` rely on, in the order
        // one stage's lints are listed (a new lint may go anywhere among them).
        let stable: [LintKind] = [.unretainedCancellable, .demandViolation, .afterTerminal, .stalled, .neverCompletes,
                                  .ownerLeak, .contractViolation, .pileUp]
        XCTAssertEqual(stable.map(\.rawValue), ["unretained-cancellable", "demand-violation", "after-terminal",
                                                "stalled", "never-completes", "owner-leak", "contract-violation",
                                                "pile-up"])
        XCTAssertEqual(kinds.filter(stable.contains), stable)
    }

    func testEachRuleIsAFileOfRulesAndEachFileIsListedOnce() throws {
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/PipescopeModel/Lints/Rules")
        let files = try FileManager.default.contentsOfDirectory(atPath: rules.path)
            .filter { $0.hasSuffix(".swift") }.map { String($0.dropLast(".swift".count)) }.sorted()
        let listed = LintRules.all.map { String(describing: $0) }
        XCTAssertEqual(files, listed.sorted(), "a file in Rules/ per rule of LintRules.all, named after its type")
        for rule in LintRules.all {
            XCTAssertFalse(rule.summary.isEmpty, "\(rule)")
            XCTAssertFalse(rule.summary.contains("\n"), "\(rule): a summary is one line")
            XCTAssertFalse(rule.advice.isEmpty, "\(rule)")
        }
    }

    // MARK: - -A and --dump-on read the rules

    func testAllowNamesAreTheRulesSpellings() throws {
        for rule in LintRules.all {
            XCTAssertEqual(try LintRules.kinds(named: [rule.kind.rawValue]), [rule.kind])
            XCTAssertEqual(LintKind(rawValue: rule.kind.rawValue), rule.kind)
            XCTAssertEqual(LintRules.named(rule.kind.rawValue)?.kind, rule.kind)
        }
        XCTAssertEqual(try LintRules.kinds(named: ["stalled", "owner-leak", "stalled"]), [.stalled, .ownerLeak])
        XCTAssertEqual(try LintRules.kinds(named: []), [])
        XCTAssertNil(LintKind(rawValue: "neverCompletes"), "the case's name is no spelling")
        XCTAssertNil(LintRules.named("Stalled"))
    }

    func testAnUnknownAllowNameListsEveryRuleWithItsSummary() {
        XCTAssertThrowsError(try LintRules.kinds(named: ["stalled", "sometimes", "nope"])) { error in
            guard let unknown = error as? UnknownLint else { return XCTFail("\(error)") }
            XCTAssertEqual(unknown.name, "sometimes", "the first unknown name")
            let lines = unknown.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(lines.first, "unknown lint 'sometimes'; -A takes one of these (for example -A unretained-cancellable):")
            XCTAssertEqual(lines.count, LintRules.all.count + 1)
            for (line, rule) in zip(lines.dropFirst(), LintRules.all) {
                XCTAssertTrue(line.hasPrefix("  " + rule.kind.rawValue + " "), line)
                XCTAssertTrue(line.hasSuffix(rule.summary), line)
            }
        }
    }

    func testTheListingAlignsTheSummaries() {
        let lines = LintRules.listing(indent: "    ").split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, LintRules.all.count)
        let starts = Set(zip(lines, LintRules.all).map { line, rule in line.count - rule.summary.count })
        XCTAssertEqual(starts.count, 1, "\(lines)")
        XCTAssertTrue(lines.contains("    never-completes         a one-shot publisher (Future, a data task, Just, Deferred, "
            + "first(), last()) still active after 30 s"), "\(lines)")
        XCTAssertEqual(LintRules.listing(indent: "", aligned: false).split(separator: "\n").map(String.init),
                       LintRules.all.map { "\($0.kind.rawValue): \($0.summary)" }, "the help's")
    }

    func testAllowingARuleStopsOnlyIt() {
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Future", subscriber: "Sink")
        b.subscription(1)
        b.request(1, .unlimited)
        let graph = Graph.folding(b.build())
        let now = t0 + 60 * second
        XCTAssertEqual(Linter().lints(graph, now: now).map(\.kind), [.stalled, .neverCompletes])
        for rule in LintRules.all {
            let linter = Linter(allowed: [rule.kind])
            XCTAssertFalse(linter.rules.contains { ObjectIdentifier($0) == ObjectIdentifier(rule) }, "\(rule)")
            XCTAssertEqual(linter.rules.count, LintRules.all.count - 1)
            XCTAssertFalse(linter.lints(graph, now: now).contains { $0.kind == rule.kind }, "-A \(rule.kind)")
        }
        var linter = Linter()
        linter.allowed = [.neverCompletes]
        XCTAssertEqual(linter.lints(graph, now: now).map(\.kind), [.stalled], "set after init")
        XCTAssertEqual(linter, Linter(allowed: [.neverCompletes]))
        XCTAssertNotEqual(linter, Linter())
    }

    // MARK: - When a rule falls due

    /// A graph whose only pipeline (root 1) gets a lint of `kind` once time alone passes,
    /// with the linter that judges it, and a moment before that.
    struct Timed {
        var kind: LintKind
        var graph: Graph
        var linter: Linter
        var before: Int64
        var label: String
    }

    /// Random pipelines that each rule reading the clock flags later, with no event:
    /// a one-shot publisher that never finishes; a pipeline waiting on upstream (a
    /// Future), on demand (a subscriber that asked for one value and got it) and for a
    /// subscription (a publisher that never sends one).
    func timedCases(seed: UInt64) -> [Timed] {
        var random = SeededGenerator(seed: seed)
        var cases: [Timed] = []
        let thresholds = [0.25, 1, 2, 5, 30, 4.5]
        func start() -> (BatchBuilder, Double) {
            let b = BatchBuilder(start: t0 + Int64(random.below(10_000)) * 1_000_000,
                                 step: Int64(random.below(5_000) + 1) * 1000)
            return (b, thresholds[Int(random.below(UInt64(thresholds.count)))])
        }
        func only(_ kind: LintKind, stalledAfter: Double = 2, neverCompletesAfter: Double = 30) -> Linter {
            var linter = Linter(allowed: Set(LintKind.allCases).subtracting([kind]))
            linter.stalledAfter = stalledAfter
            linter.neverCompletesAfter = neverCompletesAfter
            return linter
        }
        func lastTime(_ graph: Graph) -> Int64 {
            graph.nodes.values.map { max($0.createdNanos, $0.lastValueNanos ?? .min, $0.recentRequests.last?.time ?? .min) }
                .max() ?? t0
        }
        do {
            var (b, threshold) = start()
            let op = NeverCompletesRule.oneShot.sorted()[Int(random.below(UInt64(NeverCompletesRule.oneShot.count)))]
            if random.below(2) == 0 {
                b.chain(from: 1, subscriber: "Sink", ops: ["Map", op])
            } else {
                b.chain(from: 1, subscriber: "Sink", ops: [op])
            }
            let graph = Graph.folding(b.build())
            cases.append(Timed(kind: .neverCompletes, graph: graph, linter: only(.neverCompletes, neverCompletesAfter: threshold),
                               before: lastTime(graph), label: "\(op) after \(threshold) s"))
        }
        do {
            var (b, threshold) = start()
            b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Future"])
            let graph = Graph.folding(b.build())
            cases.append(Timed(kind: .stalled, graph: graph, linter: only(.stalled, stalledAfter: threshold),
                               before: lastTime(graph), label: "upstream after \(threshold) s"))
        }
        do {
            var (b, threshold) = start()
            b.subscribe(1, op: "Map", subscriber: "Counter")
            b.subscription(1)
            b.request(1, .count(1))
            b.value(1)
            let graph = Graph.folding(b.build())
            cases.append(Timed(kind: .stalled, graph: graph, linter: only(.stalled, stalledAfter: threshold),
                               before: lastTime(graph), label: "demand after \(threshold) s"))
        }
        do {
            var (b, threshold) = start()
            b.subscribe(1, op: "Silent", subscriber: "Sink")
            let graph = Graph.folding(b.build())
            cases.append(Timed(kind: .stalled, graph: graph, linter: only(.stalled, stalledAfter: threshold),
                               before: lastTime(graph), label: "subscription after \(threshold) s"))
        }
        do {
            // Pipelines made at one line over more than the window, a random time apart,
            // one of them cancelled before the rest were made: the oldest (root 1) gets the
            // lint once that end leaves the window, and its message changes as each later
            // one leaves it.
            var (b, threshold) = start()
            let count = 3 + Int(random.below(8))
            let here = BatchBuilder.at("Screen.swift", 42)
            for i in 0..<count {
                if i == 1 {
                    b.now += Int64(threshold * 1e9)
                    b.subscribe(1_001, op: "Filter", subscriber: "Sink", location: here)
                    b.cancel(1_001)
                }
                b.subscribe(NodeID(i * 2 + 1), op: "Filter", subscriber: "Sink", location: here)
                b.subscribe(NodeID(i * 2 + 2), parent: NodeID(i * 2 + 1), op: "PassthroughSubject", subscriber: "Filter")
            }
            let graph = Graph.folding(b.build())
            var linter = only(.pileUp)
            linter.pileUpAfter = threshold
            linter.pileUpCount = count
            cases.append(Timed(kind: .pileUp, graph: graph, linter: linter, before: lastTime(graph),
                               label: "\(count) after \(threshold) s"))
        }
        return cases
    }

    /// When `rule` says its lints on pipeline `root` may next change with no event, asked
    /// as the inspector's tick asks it (``PipelineLints``): the earliest over its stages.
    func due(_ rule: any LintRule.Type, root: NodeID, of graph: Graph, now: Int64, linter: Linter) -> Int64 {
        let (waits, waitsDue) = Waits.pipeline(root, of: graph, now: now, after: linter.stalledAfter)
        let context = LintContext(graph: graph, now: now, linter: linter, waits: waits, waitsDue: waitsDue,
                                  places: PlaceTally(graph))
        var due = Int64.max
        var stack = [root]
        while let id = stack.popLast(), let stage = graph[id] {
            due = min(due, rule.due(stage, in: context))
            stack.append(contentsOf: stage.children)
        }
        return due
    }

    func lints(_ kind: LintKind, _ graph: Graph, at now: Int64, linter: Linter) -> [Lint] {
        linter.lints(graph, now: now).filter { $0.kind == kind }
    }

    func testATimedRuleFallsDueTheMomentItsLintFirstAppears() throws {
        for seed in 1...30 as ClosedRange<UInt64> {
            var random = SeededGenerator(seed: seed &* 7919)
            for timed in timedCases(seed: seed) {
                let context = "seed \(seed), \(timed.kind): \(timed.label)"
                let rule = try XCTUnwrap(LintRules.named(timed.kind.rawValue))
                let appears = due(rule, root: 1, of: timed.graph, now: timed.before, linter: timed.linter)
                guard appears != .max, appears > timed.before else {
                    XCTFail("\(context): due \(appears) is not after \(timed.before)")
                    continue
                }
                XCTAssertEqual(lints(timed.kind, timed.graph, at: timed.before, linter: timed.linter), [], context)
                XCTAssertEqual(lints(timed.kind, timed.graph, at: appears - 1, linter: timed.linter), [], context)
                XCTAssertNotEqual(lints(timed.kind, timed.graph, at: appears, linter: timed.linter), [], context)
                // Asked at any moment before, the rule names the same one.
                let between = timed.before + Int64(random.below(UInt64(appears - timed.before)))
                XCTAssertEqual(due(rule, root: 1, of: timed.graph, now: between, linter: timed.linter), appears, context)
                // The tick's share falls due no later.
                let share = PipelineLints(root: 1, of: timed.graph, now: timed.before, linter: timed.linter,
                                          places: PlaceTally(timed.graph))
                XCTAssertLessThanOrEqual(share.due, appears, context)
                // Once there, the lint holds still until the rule next falls due.
                let shown = lints(timed.kind, timed.graph, at: appears, linter: timed.linter)
                let next = due(rule, root: 1, of: timed.graph, now: appears, linter: timed.linter)
                guard next > appears else {
                    XCTFail("\(context): due again at \(next), not after \(appears)")
                    continue
                }
                let later = appears + Int64(random.below(UInt64(min(next, appears + 100 * second) - appears)))
                XCTAssertEqual(lints(timed.kind, timed.graph, at: later, linter: timed.linter), shown, context)
                if next != .max {
                    XCTAssertNotEqual(lints(timed.kind, timed.graph, at: next, linter: timed.linter), shown,
                                      "\(context): its message changes when it falls due again")
                }
            }
        }
    }

    func testRulesThatReadNoClockNeverFallDue() {
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Future"])
        b.subscribe(3, op: "Map", subscriber: "Counter")
        b.subscription(3)
        b.request(3, .count(1))
        b.value(3)
        b.value(3)
        let graph = Graph.folding(b.build())
        let timed: Set<LintKind> = [.stalled, .neverCompletes]
        for rule in LintRules.all where !timed.contains(rule.kind) {
            for root: NodeID in [1, 3] {
                for now in [t0, t0 + second, t0 + 100 * second] {
                    XCTAssertEqual(due(rule, root: root, of: graph, now: now, linter: Linter()), .max, "\(rule.kind)")
                }
            }
        }
    }
}
