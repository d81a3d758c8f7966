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
        XCTAssertEqual(s.mode, .browsing)
        XCTAssertEqual(s.tree.rows.count, 5)
    }

    func testEndedPipelinesCanBeHidden() {
        var s = state()
        _ = reduce(&s, .action(.toggleEnded))
        XCTAssertEqual(s.tree.rows.map(\.id), [1, 2, 3], "the cancelled Debounce pipeline is hidden")
        _ = reduce(&s, .action(.toggleEnded))
        XCTAssertEqual(s.tree.rows.count, 5)
    }
}
