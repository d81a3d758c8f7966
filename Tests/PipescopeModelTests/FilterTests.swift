import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `/` filtering, jumping between matches, and hiding ended pipelines.
final class FilterTests: XCTestCase {
    /// Sink ← Map(1) ← Filter(2) ← Subject(3); Sink ← Debounce(4) ← Timer(5), ended.
    private func state() -> AppState {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Filter", "PassthroughSubject"])
        b.chain(from: 4, subscriber: "Sink", ops: ["Debounce", "TimerPublisher"])
        b.value(3, "hello world")
        b.cancel(4)
        b.cancel(5)
        var s = AppState(targetName: "t")
        _ = reduce(&s, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&s, .attached(process: "t", pid: 1))
        _ = reduce(&s, .batch(b.build()))
        return s
    }

    private func type(_ text: String, into s: inout AppState) {
        _ = reduce(&s, .action(.startFilter))
        for c in text { _ = reduce(&s, .action(.filterType(c))) }
        _ = reduce(&s, .action(.filterAccept))
    }

    func testASubstringKeepsMatchesAndTheirDownstream() {
        var s = state()
        type("subject", into: &s)
        XCTAssertEqual(s.tree.rows.map(\.id), [1, 2, 3], "the match and the stages downstream of it")
        XCTAssertEqual(s.tree.matches, [3])
        XCTAssertEqual(s.tree.selection, 3, "the first match is selected")
    }

    /// A filter never hides where a pipeline it keeps waits: `/Map` keeps the Future the
    /// pipeline waits on, upstream of the match (#43 item 9).
    func testAFilterKeepsTheStageAKeptPipelineWaitsOn() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Future"])
        var s = AppState(targetName: "t")
        _ = reduce(&s, .action(.toggleTable))
        _ = reduce(&s, .attached(process: "t", pid: 1))
        _ = reduce(&s, .batch(b.build()))
        _ = reduce(&s, .tick(nanos: BatchBuilder.baseNanos + 30_000_000_000))
        XCTAssertEqual(s.warnings.waits.pipeline(1)?.at, 2, "the pipeline waits on its Future")
        type("Map", into: &s)
        XCTAssertEqual(s.tree.matches, [1])
        XCTAssertEqual(s.tree.rows.map(\.id), [1, 2], "the Future it waits on stays on screen, though it does not match")
    }

    func testLastValuesAndRegularExpressionsMatchToo() {
        var s = state()
        type("hello", into: &s)
        XCTAssertEqual(s.tree.matches, [3], "matched on the last value")
        var r = state()
        type("^(Map|Debounce)$", into: &r)
        XCTAssertEqual(r.tree.matches, [1, 4])
    }

    func testNJumpsBetweenMatchesWhileRunningAndEscClears() {
        var s = state()
        type("e", into: &s)   // PassthroughSubject, Filter, Debounce, TimerPublisher… and their roots
        let first = s.tree.selection
        _ = reduce(&s, .action(.step))
        XCTAssertNotEqual(s.tree.selection, first, "n moved to the next match")
        XCTAssertTrue(s.tree.matches.contains(s.tree.selection ?? 0))
        _ = reduce(&s, .action(.dismiss))
        XCTAssertEqual(s.tree.filter, "")
        XCTAssertEqual(s.tree.rows.count, 5)
    }

    func testEscWhileTypingClearsTheFilter() {
        var s = state()
        _ = reduce(&s, .action(.startFilter))
        _ = reduce(&s, .action(.filterType("M")))
        _ = reduce(&s, .action(.filterType("a")))
        XCTAssertEqual(s.tree.rows.map(\.id), [1], "typing filters as you go")
        _ = reduce(&s, .action(.dismiss))
        XCTAssertEqual(s.layer, .browsing)
        XCTAssertEqual(s.tree.rows.count, 5)
    }

    func testEndedPipelinesCanBeHidden() {
        var s = state()
        _ = reduce(&s, .action(.toggleEnded))
        XCTAssertEqual(s.tree.rows.map(\.id), [1, 2, 3], "the cancelled Debounce pipeline is hidden")
        _ = reduce(&s, .action(.toggleEnded))
        XCTAssertEqual(s.tree.rows.count, 5)
    }

    /// 10,000 stages: pipelines ended in every stage are hidden; pipelines whose root
    /// ended while a stage upstream still runs are not; the ended branch of a live one is
    /// (its ended inner stages); chains 1,000 deep are decided without recursion.
    /// (Correctness only; the work is linear by construction.) Every pipeline has its own
    /// operator names, so that none are grouped with their ended siblings.
    func testHidingEndedPipelinesOfTenThousandStages() {
        var b = BatchBuilder(step: 0)
        var shown: [NodeID] = []
        var next: NodeID = 1
        func pipeline(_ length: Int, ended: Bool, liveAtTheTop: Bool = false) {
            let ids = (0..<length).map { next + NodeID($0) }
            b.chain(from: next, subscriber: "Sink", ops: (0..<length).map { "P\(next)Op\($0)" })
            if ended || liveAtTheTop {
                for id in ids.dropLast(liveAtTheTop ? 1 : 0) { b.cancel(id) }
            }
            if !ended { shown += ids }
            next += NodeID(length)
        }
        for p in 0..<80 {
            switch p % 3 {
            case 0: pipeline(100, ended: true)
            case 1: pipeline(100, ended: false, liveAtTheTop: true)
            default: pipeline(100, ended: false)
            }
        }
        pipeline(900, ended: true)
        // A live Zip whose first input has ended entirely: the pipeline has not ended, but
        // its ended branch is hidden like a flatMap's finished inner publishers.
        let zip = next
        b.subscribe(zip, op: "Zip", subscriber: "Sink")
        for i in 0..<50 {
            b.subscribe(zip + 1 + NodeID(i), parent: i == 0 ? zip : zip + NodeID(i), op: "Ended\(i)", subscriber: "Zip")
        }
        for i in 0..<49 {
            b.subscribe(zip + 51 + NodeID(i), parent: i == 0 ? zip : zip + 50 + NodeID(i), op: "Live\(i)", subscriber: "Zip")
        }
        for i in 0..<50 { b.cancel(zip + 1 + NodeID(i)) }
        shown += [zip] + (51..<100).map { zip + NodeID($0) }
        next += 100
        pipeline(1_000, ended: false, liveAtTheTop: true)
        var s = AppState(targetName: "t")
        _ = reduce(&s, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&s, .attached(process: "t", pid: 1))
        _ = reduce(&s, .batch(b.build()))
        XCTAssertEqual(s.tree.rows.count, 10_000)
        _ = reduce(&s, .action(.toggleEnded))
        XCTAssertEqual(s.tree.rows.count, shown.count)
        XCTAssertEqual(s.tree.rows.map(\.id), shown, "exactly the stages with a stage still running upstream, in order")
        XCTAssertEqual(s.tree.hiddenEnded, 10_000 - shown.count, "the title says how many are hidden")
        // New events keep the hidden set right: the last live stage of one ends.
        var more = BatchBuilder(step: 0)
        more.cancel(NodeID(10_000))
        _ = reduce(&s, .batch(more.build()))
        XCTAssertEqual(s.tree.rows.count, shown.count - 1_000, "that pipeline has ended now")
        _ = reduce(&s, .action(.toggleEnded))
        XCTAssertEqual(s.tree.rows.count, 10_000)
    }
}

