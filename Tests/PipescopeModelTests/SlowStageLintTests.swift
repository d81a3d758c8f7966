import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// The `slow-stage` lint on real pipelines whose code takes a controlled time. The
/// closures sleep: that is the program under test being slow, not the test waiting; the
/// tests assert which lints there are, never a time.
final class SlowStageLintTests: RecordedProbeTestCase {
    /// Longer than a frame (16 ms) by a margin, and past the histogram bucket that
    /// straddles 16 ms, so each such value counts as slow.
    private static let slow: TimeInterval = 0.022

    private func slowLints(_ linter: Linter = Linter()) -> [Lint] {
        lints(linter: linter).filter { $0.kind == .slowStage }
    }

    private func stage(_ name: String) throws -> NodeSummary {
        recorder.flush()
        return try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == name }, "no \(name) stage")
    }

    func testAMapSlowerThanAFrameForSeveralValuesIsNamedWithItsFigures() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { n -> Int in
            Thread.sleep(forTimeInterval: Self.slow)
            return n
        }.sink { _ in }
        for n in 1...4 { subject.send(n) }
        let map = try stage("Map")
        let found = slowLints()
        XCTAssertEqual(found.map(\.node), [map.id], "\(found.map(\.message))")
        let message = try XCTUnwrap(found.first?.message)
        let place = probe.graph.location(of: map.id).map { " (\($0.location.short))" } ?? ""
        XCTAssertTrue(message.hasPrefix("#\(map.id) Map\(place) took longer than a frame (16 ms) for 4 of 4 values (p50 "),
                      message)
        XCTAssertTrue(message.contains(", max "), message)
        XCTAssertTrue(message.hasSuffix("move the work off that thread (receive(on:) a background queue before it, "
                                        + "and back to the main queue after), or do less per value."), message)
        XCTAssertEqual(slowLints(Linter(allowed: [.slowStage])), [], "-A slow-stage")
        var lenient = Linter()
        lenient.slowAfter = 500
        XCTAssertEqual(slowLints(lenient), [], "--slow-after 500: none took that long")
        c.cancel()
    }

    func testTheSameMapWithoutTheSlowWorkIsNot() {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.sink { _ in }
        for n in 1...50 { subject.send(n) }
        XCTAssertEqual(slowLints(), [])
        c.cancel()
    }

    func testASlowFirstValueIsAWarmUpNotASlowStage() {
        let subject = PassthroughSubject<Int, Never>()
        var first = true
        let c = subject.map { n -> Int in
            if first {
                first = false
                Thread.sleep(forTimeInterval: Self.slow)
            }
            return n
        }.sink { _ in }
        for n in 1...20 { subject.send(n) }
        XCTAssertEqual(slowLints(), [])
        c.cancel()
    }

    func testTheSlowStageIsTheOneWhoseCodeIsSlowNotTheOnesThatCallIt() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.filter { _ in true }.map { n -> Int in
            Thread.sleep(forTimeInterval: Self.slow)
            return n
        }.sink { _ in }
        for n in 1...3 { subject.send(n) }
        let map = try stage("Map")
        XCTAssertEqual(slowLints().map(\.node), [map.id], "the map's closure, not the filter that delivers to it")
        c.cancel()
    }

    func testASlowSinkIsNamedAsTheSubscriberOfItsRoot() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in Thread.sleep(forTimeInterval: Self.slow) }
        for n in 1...3 { subject.send(n) }
        let root = try stage("PassthroughSubject")
        let found = slowLints()
        XCTAssertEqual(found.map(\.node), [root.id])
        let place = probe.graph.location(of: root.id).map { " (\($0.location.short))" } ?? ""
        XCTAssertTrue(found.first?.message.hasPrefix("Sink, the subscriber of #\(root.id) PassthroughSubject\(place), "
                                                     + "took longer than a frame (16 ms) for 3 of 3 values") == true,
                      found.first?.message ?? "")
        c.cancel()
    }
}
