import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Which values get text, exactly (see `ValueCapture`): scalars every value, other
/// values the first per stage per flush window, every value of a watched stage or while
/// paused, none when turned off.
final class ValueCaptureTests: XCTestCase {
    private var probe: Probe!

    override func setUp() {
        probe = Probe()
        probe.enable()
    }

    override func tearDown() {
        probe.gate.resume()
        probe.disable()
    }

    /// The texts of the value events of the batch, in order ("" for a value without).
    private func valueTexts(_ batch: EventBatch) -> [String] {
        batch.events.filter { $0.kind == .value }.map(\.text)
    }

    func testScalarsCarryTheirTextOnEveryValue() {
        let ints = PassthroughSubject<Int, Never>()
        let strings = PassthroughSubject<String, Never>()
        let flags = PassthroughSubject<Bool, Never>()
        let doubles = PassthroughSubject<Double, Never>()
        let bytes = PassthroughSubject<UInt8, Never>()
        let sinks = [ints.sink { _ in }, strings.sink { _ in }, flags.sink { _ in }, doubles.sink { _ in },
                     bytes.sink { _ in }]
        probe.flush()
        ints.send(1); ints.send(-42)
        strings.send("hello"); strings.send("two\nlines")
        flags.send(true)
        doubles.send(0.1)
        bytes.send(255)
        XCTAssertEqual(valueTexts(probe.flush()), ["1", "-42", "hello", "two⏎lines", "true", "0.1", "255"])
        withExtendedLifetime(sinks) {}
    }

    func testOtherValuesAreDescribedOncePerStagePerFlushWindow() throws {
        let subject = PassthroughSubject<Point, Never>()
        let sink = subject.map { $0 }.sink { _ in }
        probe.flush()
        Point.resetDescriptions()
        for i in 0..<100 { subject.send(Point(x: i, y: i)) }
        let first = valueTexts(probe.flush())
        // Two stages (the subject's and the map's subscribers), 100 values each.
        XCTAssertEqual(first.count, 200)
        XCTAssertEqual(first.filter { !$0.isEmpty }, ["(0, 0)", "(0, 0)"], "the first value of each stage")
        XCTAssertEqual(Point.descriptions, 2, "described once per stage, not once per value")

        subject.send(Point(x: 7, y: 8))
        XCTAssertEqual(valueTexts(probe.flush()), ["(7, 8)", "(7, 8)"], "a new window describes again")
        let map = try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == "Map" })
        XCTAssertEqual(map.lastValue, "(7, 8)")
        XCTAssertEqual(map.values, 101)
        sink.cancel()
    }

    func testAWatchedStageHasEveryValueDescribed() throws {
        let subject = PassthroughSubject<Point, Never>()
        let sink = subject.map { $0 }.sink { _ in }
        probe.flush()
        let map = try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == "Map" })
        probe.captureEveryValue(of: [map.id])
        for i in 0..<3 { subject.send(Point(x: i, y: 0)) }
        let batch = probe.flush()
        let mapTexts = batch.events.filter { $0.kind == .value && $0.node == map.id }.map(\.text)
        XCTAssertEqual(mapTexts, ["(0, 0)", "(1, 0)", "(2, 0)"])
        let others = batch.events.filter { $0.kind == .value && $0.node != map.id }.map(\.text)
        XCTAssertEqual(others, ["(0, 0)", "", ""], "the unwatched stage is still sampled")
        sink.cancel()
    }

    func testEveryValueIsDescribedWhileThePipelinesArePaused() throws {
        let subject = PassthroughSubject<Point, Never>()
        let sink = subject.sink { _ in }
        probe.flush()
        // One value in this window first: without the pause the next ones would be bare.
        subject.send(Point(x: 0, y: 0))
        probe.gate.pause(by: ObjectIdentifier(self))
        let done = DispatchSemaphore(value: 0)
        Thread { for i in 1...3 { subject.send(Point(x: i, y: i)) }; done.signal() }.start()
        for _ in 1...3 {
            let deadline = Date().addingTimeInterval(30)
            while probe.gate.state().pending.isEmpty, Date() < deadline { usleep(1_000) }
            probe.gate.step(1)
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(valueTexts(probe.flush()), ["(0, 0)", "(1, 1)", "(2, 2)", "(3, 3)"])
        sink.cancel()
    }

    func testNoValueTextWhenCaptureIsOff() {
        let subject = PassthroughSubject<Int, Never>()
        let structs = PassthroughSubject<Point, Never>()
        let sinks = [subject.sink { _ in }, structs.sink { _ in }]
        probe.captureNoValues()
        probe.flush()
        Point.resetDescriptions()
        subject.send(1)
        structs.send(Point(x: 1, y: 1))
        XCTAssertEqual(valueTexts(probe.flush()), ["", ""])
        XCTAssertEqual(Point.descriptions, 0)
        withExtendedLifetime(sinks) {}
    }

    func testLongTextsAreCutAndSaySo() {
        let subject = PassthroughSubject<String, Never>()
        let sink = subject.sink { _ in }
        probe.flush()
        subject.send(String(repeating: "a", count: 10_000))
        let text = valueTexts(probe.flush()).first ?? ""
        XCTAssertEqual(text.count, ValueCapture.maxLength)
        XCTAssertTrue(text.hasSuffix("…"))
        sink.cancel()
    }
}

/// A struct with a description of its own (not a scalar), counting its descriptions.
struct Point: CustomStringConvertible, Sendable {
    var x: Int
    var y: Int

    private static let lock = NSLock()
    nonisolated(unsafe) private static var count = 0
    static var descriptions: Int { lock.withLock { count } }
    static func resetDescriptions() { lock.withLock { count = 0 } }

    var description: String {
        Self.lock.withLock { Self.count += 1 }
        return "(\(x), \(y))"
    }
}
