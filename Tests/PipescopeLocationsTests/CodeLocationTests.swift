import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeLocations
@testable import PipescopeProbe
import PipescopeGraph
@testable import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

/// "Code at" and "built by": real OpenCombine pipelines whose closures are on known lines
/// of this file, through the real tap (which reads each closure's address from the
/// publisher or sink, calling nothing) and the real symbolizer (this test binary is a
/// debug build, with line tables). Each closure's line is `#line` plus its distance.
final class CodeLocationTests: LocatedProbeTestCase {
    private let file = #filePath

    private func node(_ graph: Graph, _ id: NodeID, lints: [Lint] = []) -> [String: Any] {
        let text = SnapshotJSON.render(graph, lints: lints)
        let document = try! JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        return (document["nodes"] as! [[String: Any]]).first { ($0["id"] as? Int) == Int(id) }!
    }

    // MARK: - Each operator's closure

    func testEachOperatorsClosureIsItsCode() {
        let subject = PassthroughSubject<Int, Never>()
        let first = #line + 2
        let c = subject
            .map { $0 + 1 }
            .filter { $0 > 0 }
            .compactMap { Optional($0) }
            .handleEvents(receiveOutput: { _ in })
            .sink { _ in }
        subject.send(1)
        let graph = self.graph
        let test = "CodeLocationTests.testEachOperatorsClosureIsItsCode()"
        assertCode(stage(graph, "Map").code, line: first, function: "closure #1 in \(test)")
        assertCode(stage(graph, "Filter").code, line: first + 1, function: "closure #2 in \(test)")
        assertCode(stage(graph, "CompactMap").code, line: first + 2, function: "closure #3 in \(test)")
        assertCode(stage(graph, "HandleEvents").code, line: first + 3, function: "closure #4 in \(test)")
        // A subject runs no code of the program's.
        XCTAssertNil(stage(graph, "PassthroughSubject").code)
        // Where each was subscribed is still the sink's line.
        XCTAssertEqual(graph.location(of: stage(graph, "Map").id)?.location.line, first + 4)
        c.cancel()
    }

    func testTheThrowingOperatorsAndACapturingClosure() {
        let subject = PassthroughSubject<Int, Error>()
        let offset = 3
        let first = #line + 2
        let c = subject
            .tryMap { $0 + offset }
            .tryFilter { $0 > offset }
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        subject.send(5)
        let graph = self.graph
        let test = "CodeLocationTests.testTheThrowingOperatorsAndACapturingClosure()"
        assertCode(stage(graph, "TryMap").code, line: first, function: "closure #1 in \(test)")
        // TryFilter is the root: its own closure wins over its sink's.
        assertCode(stage(graph, "TryFilter").code, line: first + 1, function: "closure #2 in \(test)")
        c.cancel()
    }

    func testASinksClosureIsTheCodeOfARootWhoseOperatorRunsNone() {
        let subject = PassthroughSubject<Int, Never>()
        let line = #line; let c = subject.sink { _ in }
        subject.send(1)
        let graph = self.graph
        let root = graph[graph.roots[0]]!
        assertCode(root.code, line: line,
                   function: "closure #1 in CodeLocationTests.testASinksClosureIsTheCodeOfARootWhoseOperatorRunsNone()")
        c.cancel()
    }

    func testAMethodPassedByNameStaysUnknownRatherThanNamingTheWrongCode() {
        let subject = PassthroughSubject<Int, Never>()
        // Swift stores a method passed by name as a forwarder ("partial apply for
        // implicit closure #3 in …") that calls it indirectly in a debug build: no direct
        // call names the method, so the stage's code is unknown, and it says nothing
        // (not the forwarder, not the sink's closure).
        let c = subject.map(Self.double).sink { _ in }
        subject.send(2)
        let graph = self.graph
        XCTAssertNil(stage(graph, "Map").code)
        XCTAssertTrue(node(graph, stage(graph, "Map").id)["code"] is NSNull)
        c.cancel()
    }

    private static func double(_ x: Int) -> Int { x * 2 }

    // MARK: - What stays unknown

    func testFusedMapsAndAFutureHaveNoCodeRatherThanAWrongOne() {
        let subject = PassthroughSubject<Int, Never>()
        // OpenCombine fuses map.map into one Map whose closure is its own: which of the
        // two closures runs slowly cannot be said, so neither is named.
        let c = subject.map { $0 + 1 }.map { $0 * 2 }.sink { _ in }
        let future = Future<Int, Never> { _ in }
        let d = future.filter { _ in true }.sink { _ in }
        let graph = self.graph
        let maps = graph.nodes.values.filter { $0.operatorName == "Map" }
        XCTAssertEqual(maps.count, 1, "fused")
        XCTAssertNil(maps[0].code, "neither closure, nor the sink's: the Map runs code, but whose is unknown")
        // A Future keeps no closure: nothing to read.
        XCTAssertNil(stage(graph, "Future").code)
        c.cancel()
        d.cancel()
    }

    // MARK: - Built by

    enum API {
        static let searchLine = #line + 3
        /// Builds the request's publisher: a Deferred whose closure is on `searchLine`.
        static func search(_ query: Int) -> Deferred<Just<Int>> {
            Deferred { Just(query * 10) }
        }
    }

    func testAnInnerPublisherIsBuiltByTheFunctionItsClosureIsIn() {
        let subject = PassthroughSubject<Int, Never>()
        let flatMapLine = #line + 1
        let c = subject.flatMap { API.search($0) }.sink { _ in }
        subject.send(4)
        let graph = self.graph
        let deferred = stage(graph, "Deferred")
        assertCode(deferred.code, line: API.searchLine, function: "closure #1 in static CodeLocationTests.API.search(_:)")
        assertCode(deferred.builtBy, line: API.searchLine, function: "static CodeLocationTests.API.search(_:)")
        XCTAssertEqual(graph.builtBy(of: deferred.id)?.isTransform, false)
        assertCode(stage(graph, "FlatMap").code, line: flatMapLine,
                   function: "closure #1 in CodeLocationTests.testAnInnerPublisherIsBuiltByTheFunctionItsClosureIsIn()")
        let json = node(graph, deferred.id)
        XCTAssertEqual((json["built_by"] as? [String: Any])?["function"] as? String,
                       "static CodeLocationTests.API.search(_:)")
        XCTAssertEqual((json["built_by"] as? [String: Any])?["line"] as? Int, API.searchLine)
        XCTAssertEqual((json["built_by"] as? [String: Any])?["transform"] as? Bool, false)
        XCTAssertEqual((json["code"] as? [String: Any])?["line"] as? Int, API.searchLine)
        c.cancel()
    }

    func testAFutureIsBuiltByTheTransformThatReturnedItAndSaysSo() {
        let subject = PassthroughSubject<Int, Never>()
        let flatMapLine = #line + 1
        let c = subject.flatMap { value in Future<Int, Never> { _ in _ = value } }.sink { _ in }
        subject.send(1)
        let graph = self.graph
        let future = stage(graph, "Future")
        XCTAssertNil(future.code)
        XCTAssertNil(future.builtBy, "the probe cannot name the function: a Future keeps no closure")
        let built = graph.builtBy(of: future.id)
        XCTAssertEqual(built?.isTransform, true)
        let test = "CodeLocationTests.testAFutureIsBuiltByTheTransformThatReturnedItAndSaysSo()"
        assertCode(built?.location, line: flatMapLine, function: "closure #1 in \(test)")
        let json = node(graph, future.id)
        XCTAssertTrue(json["code"] is NSNull)
        XCTAssertEqual((json["built_by"] as? [String: Any])?["transform"] as? Bool, true)
        XCTAssertEqual((json["built_by"] as? [String: Any])?["line"] as? Int, flatMapLine)
        // A stage that is not an inner publisher's has no builder.
        XCTAssertNil(graph.builtBy(of: stage(graph, "FlatMap").id))
        XCTAssertTrue(node(graph, stage(graph, "FlatMap").id)["built_by"] is NSNull)
        // The stalled Future's line to change is what built it, not where the pipeline was
        // subscribed.
        XCTAssertEqual(graph.lineToChange(future.id, ownCode: true)?.line, flatMapLine)
        let lint = Lint(kind: .stalled, node: future.id, message: "waits")
        let document = try! JSONSerialization.jsonObject(with: Data(SnapshotJSON.render(graph, lints: [lint]).utf8))
        let lints = (document as! [String: Any])["lints"] as! [[String: Any]]
        let at = lints[0]["at"] as? [String: Any]
        XCTAssertEqual(at?["file"] as? String, file)
        XCTAssertEqual(at?["line"] as? Int, flatMapLine)
        XCTAssertEqual(at?["function"] as? String, "closure #1 in \(test)")
        XCTAssertEqual(Set(at?.keys.map { $0 } ?? []), ["file", "line", "function"])
        c.cancel()
    }

    // MARK: - The detail pane

    func testTheDetailPaneSaysSubscribedAtCodeAtAndBuiltBy() {
        let subject = PassthroughSubject<Int, Never>()
        let first = #line + 2
        let c = subject
            .flatMap { API.search($0) }
            .map { $0 + 1 }
            .sink { _ in }
        subject.send(2)
        let graph = self.graph
        let test = "CodeLocationTests.testTheDetailPaneSaysSubscribedAtCodeAtAndBuiltBy()"
        let map = stage(graph, "Map")
        var lines = screen(graph, selected: map.id)
        // (The pane is narrow beside the timeline: the function names are cut.)
        _ = test
        assertShows(lines, "subscribed at CodeLocationTests.swift:\(first + 2)  in CodeLocationTests.test")
        assertShows(lines, "code at CodeLocationTests.swift:\(first + 1)  in closure #2 in CodeLocationTests.test")
        lines = screen(graph, selected: stage(graph, "Deferred").id)
        assertShows(lines, "code at CodeLocationTests.swift:\(API.searchLine)  in closure #1 in static CodeLocationTests.API.")
        assertShows(lines, "built by static CodeLocationTests.API.search(_:) at CodeLocationTests.swift:\(API.searchLine)")
        c.cancel()
    }

    private func screen(_ graph: Graph, selected: NodeID) -> [String] {
        var state = AppState(targetName: "tests", pid: 1)
        _ = reduce(&state, .attached(process: "tests", pid: 1))
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .snapshot(graph.snapshot()))
        state.tree.selection = selected
        var buffer = ScreenBuffer(width: 200, height: 50)
        ScreenView.render(state, theme: .plainUnicode, into: &buffer)
        return buffer.lines()
    }

    private func assertShows(_ lines: [String], _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(lines.contains { $0.contains(text) }, "no \"\(text)\" in\n" + lines.joined(separator: "\n"),
                      file: file, line: line)
    }
}
