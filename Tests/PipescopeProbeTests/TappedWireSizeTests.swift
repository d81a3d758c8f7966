import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeWire
import XCTest

/// What version 4 costs on the wire for events a real tap records (causes, threads and
/// timings included, not only the benchmark's bare values), and that the tap's scalars
/// reach the inspector as numbers whose words are exactly the values' descriptions.
final class TappedWireSizeTests: XCTestCase {
    func testTappedScalarsTravelAsNumbersAndShowTheirDescriptions() throws {
        let probe = Probe()
        probe.enable()
        defer { probe.disable() }
        let ints = PassthroughSubject<Int, Never>()
        let doubles = PassthroughSubject<Double, Never>()
        let flags = PassthroughSubject<Bool, Never>()
        var seen: [String] = []
        var keep: [AnyCancellable] = []
        keep.append(ints.map { $0 * 3 }.filter { $0 % 2 == 0 }.sink { seen.append(String(describing: $0)) })
        keep.append(doubles.map { $0 / 10 }.sink { seen.append(String(describing: $0)) })
        keep.append(flags.sink { seen.append(String(describing: $0)) })
        var writer = WireStreamWriter(), reader = WireStreamReader()
        func travel(_ batch: EventBatch) throws -> (EventBatch, Int) {
            let frame = writer.message(batch).framed()
            return (try reader.batch(ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize)).packed), frame.count)
        }
        _ = try travel(probe.flush())  // the stages' names travel once
        for i in 0..<2_000 { ints.send(i) }
        for i in 0..<20 { doubles.send(Double(i) + 0.5) }
        flags.send(true)
        flags.send(false)
        let flushed = probe.flush()
        let (batch, bytes) = try travel(flushed)
        XCTAssertEqual(batch, flushed)
        let values = batch.events.filter { $0.kind == .value }
        XCTAssertFalse(values.isEmpty, "the values were tapped")
        XCTAssertTrue(values.allSatisfy { $0.value.isScalar }, "every tapped scalar travels as a number")
        // Each root's values, as their sinks saw them, are the words the inspector shows.
        let roots = Set(batch.events.filter { $0.kind == .value }.map(\.node)).filter { probe.graph[$0]?.parent == nil }
        XCTAssertEqual(values.filter { roots.contains($0.node) }.map(\.text), seen)
        XCTAssertTrue(seen.contains("0.05") && seen.contains("true") && seen.contains("5994"), "\(seen.suffix(5))")
        let causes = batch.events.filter { $0.causedBy != 0 }.count
        let timed = batch.events.filter { $0.totalNanos > 0 }.count
        print("TappedWireSizeTests: \(batch.events.count) tapped events (\(values.count) values, \(causes) with a cause, "
            + "\(timed) timed) in \(bytes) bytes: " + String(format: "%.2f", Double(bytes) / Double(batch.events.count))
            + " bytes an event")
        withExtendedLifetime(keep) {}
    }
}
