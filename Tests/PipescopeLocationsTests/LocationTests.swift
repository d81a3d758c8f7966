import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// Where pipelines were made: real OpenCombine pipelines built on known lines, through
/// the real tap and the real symbolizer (this test binary is a debug build, with line
/// tables). Each line is taken with `#line` in the same statement as the call it names.
final class LocationTests: LocatedProbeTestCase {
    private let file = #filePath

    private func root(_ graph: Graph, _ index: Int = 0) -> NodeSummary {
        graph[graph.roots[index]]!
    }

    private func assertAt(_ location: SourceLocation?, line: Int, function: String? = nil,
                          file callerFile: StaticString = #filePath, at callerLine: UInt = #line) {
        guard let location else { return XCTFail("no location", file: callerFile, line: callerLine) }
        XCTAssertEqual(location.file, file, file: callerFile, line: callerLine)
        XCTAssertEqual(location.line, line, "at \(location)", file: callerFile, line: callerLine)
        if let function { XCTAssertEqual(location.function, function, file: callerFile, line: callerLine) }
    }

    /// `snapshot --json`'s node `id`, parsed.
    private func json(_ graph: Graph, _ id: NodeID) -> [String: Any] {
        let document = try! JSONSerialization.jsonObject(with: Data(SnapshotJSON.render(graph).utf8)) as! [String: Any]
        let nodes = document["nodes"] as! [[String: Any]]
        return nodes.first { ($0["id"] as? Int) == Int(id) }!
    }

    private func assertJSON(_ location: Any?, line: Int, function: String,
                            file callerFile: StaticString = #filePath, at callerLine: UInt = #line) {
        let l = location as? [String: Any]
        XCTAssertEqual(l?["file"] as? String, file, file: callerFile, line: callerLine)
        XCTAssertEqual(l?["line"] as? Int, line, file: callerFile, line: callerLine)
        XCTAssertEqual(l?["function"] as? String, function, file: callerFile, line: callerLine)
    }

    /// The whole screen, `selected` in the detail pane. At 160x40 the tree pane is 88
    /// columns wide (room for this file's name in LOCATION beside the status words); at
    /// 200x50 the detail pane has room for whole function names.
    private func screen(_ graph: Graph, selected: NodeID, width: Int = 160, height: Int = 40) -> [String] {
        var state = AppState(targetName: "tests", pid: 1)
        _ = reduce(&state, .attached(process: "tests", pid: 1))
        _ = reduce(&state, .action(.toggleTable))  // the tree (the table is the first screen)
        _ = reduce(&state, .snapshot(graph.snapshot()))
        state.tree.selection = selected
        var buffer = ScreenBuffer(width: width, height: height)
        ScreenView.render(state, theme: .plainUnicode, into: &buffer)
        return buffer.lines()
    }

    /// Tree row `index` (0 is the first stage), as rendered in the tree pane (the 88
    /// columns at the left of a 160-column screen).
    private func row(_ lines: [String], _ index: Int) -> String {
        String(lines[3 + index].prefix(88))
    }

    /// Whether a tree row's location column reads `LocationTests.swift:<line>`.
    private func showsLine(_ row: String, _ line: Int) -> Bool {
        row.hasSuffix(" LocationTests.swift:\(line) │") || row.contains(" LocationTests.swift:\(line)  ")
    }

    private func assertShows(_ lines: [String], _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(lines.contains { $0.contains(text) }, "no \"\(text)\" in\n" + lines.joined(separator: "\n"),
                      file: file, line: line)
    }

    // MARK: - The five shapes

    func testSinkIsWhereSinkWasCalled() {
        let subject = PassthroughSubject<Int, Never>()
        let (c, line) = (subject.map { $0 + 1 }.filter { $0 > 0 }.sink { _ in }, #line)
        let graph = self.graph
        let sink = root(graph)
        assertAt(sink.location, line: line, function: "LocationTests.testSinkIsWhereSinkWasCalled()")
        XCTAssertEqual(sink.location?.short, "LocationTests.swift:\(line)")
        // Its upstream stages have none of their own, and show the pipeline's.
        let upstream = graph.nodes.values.filter { $0.parent != nil }
        XCTAssertEqual(upstream.count, 2)
        for stage in upstream {
            XCTAssertNil(stage.location)
            XCTAssertEqual(graph.location(of: stage.id)?.location, sink.location)
            XCTAssertEqual(graph.location(of: stage.id)?.from, sink.id)
            XCTAssertEqual(graph.location(of: stage.id)?.isInherited, true)
        }
        let function = "LocationTests.testSinkIsWhereSinkWasCalled()"
        assertJSON(json(graph, sink.id)["location"], line: line, function: function)
        XCTAssertEqual(json(graph, sink.id)["locationFrom"] as? Int, Int(sink.id))
        let map = graph.nodes.values.first { $0.operatorName == "Map" }!
        assertJSON(json(graph, map.id)["location"], line: line, function: function)
        XCTAssertEqual(json(graph, map.id)["locationFrom"] as? Int, Int(sink.id), "the pipeline's, inherited")
        let lines = screen(graph, selected: sink.id)
        XCTAssertTrue(row(lines, 0).hasPrefix("│▾ Filter → Sink"))
        XCTAssertTrue(showsLine(row(lines, 0), line), row(lines, 0))
        XCTAssertTrue(showsLine(row(lines, 1), line), "upstream stages show it too: " + row(lines, 1))
        assertShows(screen(graph, selected: sink.id, width: 200, height: 50),
                    "subscribed at LocationTests.swift:\(line)  in \(function)")
        c.cancel()
    }

    func testAssignIsWhereAssignWasCalled() {
        final class Box { var value = 0 }
        let box = Box()
        let subject = PassthroughSubject<Int, Never>()
        let (c, line) = (subject.assign(to: \.value, on: box), #line)
        subject.send(3)
        let graph = self.graph
        let assign = root(graph)
        let function = "LocationTests.testAssignIsWhereAssignWasCalled()"
        assertAt(assign.location, line: line, function: function)
        assertJSON(json(graph, assign.id)["location"], line: line, function: function)
        XCTAssertTrue(showsLine(row(screen(graph, selected: assign.id), 0), line))
        XCTAssertEqual(box.value, 3)
        c.cancel()
    }

    func testACustomSubscriberIsWhereItWasSubscribed() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TwoAtATime()
        let line = #line; subject.subscribe(subscriber)
        let graph = self.graph
        let root = self.root(graph)
        let function = "LocationTests.testACustomSubscriberIsWhereItWasSubscribed()"
        XCTAssertEqual(root.subscriber, "TwoAtATime")
        assertAt(root.location, line: line, function: function)
        assertJSON(json(graph, root.id)["location"], line: line, function: function)
        XCTAssertTrue(showsLine(row(screen(graph, selected: root.id), 0), line))
        subscriber.subscription?.cancel()
    }

    func testAFlatMapInnerIsWhereTheValueThatMadeItWasSent() {
        let subject = PassthroughSubject<Int, Never>()
        let (c, sinkLine) = (subject.flatMap { Just($0 * 2) }.sink { _ in }, #line)
        let sendLine = #line; subject.send(1)
        let graph = self.graph
        let flatMap = root(graph)
        assertAt(flatMap.location, line: sinkLine)
        let inner = graph.nodes.values.first { $0.operatorName == "Just" }!
        XCTAssertEqual(graph[inner.parent!]?.operatorName, "FlatMap")
        assertAt(inner.location, line: sendLine,
                 function: "LocationTests.testAFlatMapInnerIsWhereTheValueThatMadeItWasSent()")
        XCTAssertEqual(graph.location(of: inner.id)?.isInherited, false)
        assertJSON(json(graph, inner.id)["location"], line: sendLine,
                   function: "LocationTests.testAFlatMapInnerIsWhereTheValueThatMadeItWasSent()")
        XCTAssertEqual(json(graph, inner.id)["locationFrom"] as? Int, Int(inner.id))
        // FlatMap → Sink, its PassthroughSubject, then the Just it made.
        let lines = screen(graph, selected: inner.id)
        XCTAssertTrue(row(lines, 0).contains("FlatMap → Sink") && showsLine(row(lines, 0), sinkLine), row(lines, 0))
        XCTAssertTrue(row(lines, 2).contains("Just") && showsLine(row(lines, 2), sendLine), row(lines, 2))
        c.cancel()
    }

    func testAHelperCalledFromTwoPlacesShowsItsLineAndEachCaller() {
        let subject = PassthroughSubject<Int, Never>()
        let ((first, helperLine), callerA) = (Self.makePipeline(subject), #line)
        let ((second, _), callerB) = (Self.makePipeline(subject), #line)
        let graph = self.graph
        XCTAssertEqual(graph.roots.count, 2)
        let a = root(graph, 0), b = root(graph, 1)
        assertAt(a.location, line: helperLine, function: "static LocationTests.makePipeline(_:)")
        assertAt(b.location, line: helperLine, function: "static LocationTests.makePipeline(_:)")
        assertAt(a.frames.first, line: callerA,
                 function: "LocationTests.testAHelperCalledFromTwoPlacesShowsItsLineAndEachCaller()")
        assertAt(b.frames.first, line: callerB,
                 function: "LocationTests.testAHelperCalledFromTwoPlacesShowsItsLineAndEachCaller()")
        XCTAssertLessThanOrEqual(a.frames.count, Locator.callerLimit)
        // The JSON's frames and the detail pane name each caller.
        let test = "LocationTests.testAHelperCalledFromTwoPlacesShowsItsLineAndEachCaller()"
        for (stage, caller) in [(a, callerA), (b, callerB)] {
            let node = json(graph, stage.id)
            assertJSON(node["location"], line: helperLine, function: "static LocationTests.makePipeline(_:)")
            assertJSON((node["frames"] as? [Any])?.first, line: caller, function: test)
            let lines = screen(graph, selected: stage.id, width: 200, height: 50)
            assertShows(lines, "subscribed at LocationTests.swift:\(helperLine)  in static LocationTests.makePipeline(_:)")
            // (The pane cuts the test's long name.)
            assertShows(lines, "called from LocationTests.swift:\(caller)  in \(test.prefix(50))")
        }
        first.cancel()
        second.cancel()
    }

    /// Pipelines are often built in async code: the walk climbs out of the async
    /// function's frame like any other.
    func testASinkInAnAsyncFunction() async {
        let subject = PassthroughSubject<Int, Never>()
        let (c, line) = await Self.subscribeAfterSuspending(subject)
        let root = root(graph)
        assertAt(root.location, line: line, function: "static LocationTests.subscribeAfterSuspending(_:)")
        c.cancel()
    }

    private static func subscribeAfterSuspending(_ subject: PassthroughSubject<Int, Never>) async -> (AnyCancellable, Int) {
        await Task.yield()
        return (subject.sink { _ in }, #line)
    }

    @inline(never)
    private static func makePipeline(_ subject: PassthroughSubject<Int, Never>) -> (AnyCancellable, Int) {
        (subject.map { $0 * 2 }.sink { _ in }, #line)
    }
}

/// A subscriber of the test's own, asking for two values at a time.
private final class TwoAtATime: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never
    var subscription: Subscription?
    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(2))
    }
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}
