@testable import PipescopeProbe
import PipescopeGraph
import XCTest

/// A test case with a real probe enabled around each test, whose graph is read once the
/// symbol thread has placed every stage: the base of the tests that check where a stage
/// was made and where its code is, on known lines of their own files.
///
/// ```swift
/// final class MyCodeTests: LocatedProbeTestCase {
///     func testMap() {
///         let line = #line + 1
///         let c = subject.map { $0 + 1 }.sink { _ in }
///         assertCode(stage(graph, "Map").code, line: line, function: "closure #1 in MyCodeTests.testMap()")
///     }
/// }
/// ```
class LocatedProbeTestCase: XCTestCase {
    var probe: Probe!

    override func setUp() {
        super.setUp()
        probe = Probe()
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
        probe = nil
        super.tearDown()
    }

    /// The probe's graph once every stage flushed so far has its places.
    var graph: Graph {
        XCTAssertTrue(probe.settleLocations(), "locations still pending after a minute")
        return probe.graph
    }

    /// The one stage of `operatorName` (a test fails when there are none or several).
    func stage(_ graph: Graph, _ operatorName: String) -> NodeSummary {
        let found = graph.nodes.values.filter { $0.operatorName == operatorName }
        XCTAssertEqual(found.count, 1, "one \(operatorName) in \(graph.nodes.values.map(\.operatorName))")
        // A missing stage fails above; the graph's first stage stands in so the test goes on.
        return found.first ?? graph.nodes.values.first!
    }

    /// `location` is `line` of the calling test's own file, in `function`.
    func assertCode(_ location: SourceLocation?, line: Int, function: String,
                    file callerFile: StaticString = #filePath, at callerLine: UInt = #line) {
        guard let location else { return XCTFail("no code place", file: callerFile, line: callerLine) }
        XCTAssertEqual(location.file, "\(callerFile)", file: callerFile, line: callerLine)
        XCTAssertEqual(location.line, line, "at \(location)", file: callerFile, line: callerLine)
        XCTAssertEqual(location.function, function, file: callerFile, line: callerLine)
    }
}
