import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Every event kind (``EventKind/payload``) survives the wire's codecs: the kind numbers,
/// packed batches and version 1's messages.
final class EventKindCodingTests: XCTestCase {
    func testTheWireKnowsEveryKindByTheSameNumberAndNoOther() {
        XCTAssertEqual(EventKind.allCases.count, WireEventKind.allCases.count, "a kind missing from the .proto or here")
        for kind in EventKind.allCases {
            XCTAssertEqual(kind.wire.rawValue, Int(kind.rawValue), "\(kind)")
            XCTAssertEqual(EventKind(wire: kind.wire), kind)
            XCTAssertEqual(EventKind(wireNumber: UInt32(kind.rawValue)), kind)
        }
        let next = EventKind.allCases.map(\.rawValue).max()! + 1
        XCTAssertEqual(EventKind(wireNumber: UInt32(next)), .unknown, "a newer probe's kind is skipped, never misread")
        XCTAssertEqual(EventKind(wireNumber: UInt32(256) + 4), .unknown, "not read modulo 256")
        XCTAssertEqual(EventKind(wireNumber: -4), .unknown)
    }

    func testEveryKindSurvivesPackingAndUnpacking() throws {
        let batch = KindSamples.batch(KindSamples.kinds)
        var writer = StringTable(), reader = StringTable()
        let unpacked = try BatchPacking.unpack(BatchPacking.pack(batch, table: &writer), table: &reader)
        XCTAssertEqual(unpacked.events, batch.events)
        XCTAssertEqual(unpacked.nodes, batch.nodes)
    }

    func testEveryKindSurvivesTheVersionOneMessages() {
        for event in KindSamples.batch(KindSamples.kinds).events {
            var wire = WireEvent()
            wire.kind = event.kind.wire
            wire.node = event.node
            wire.timeNs = event.time
            wire.demand = event.demand.wire
            wire.other = event.other
            wire.cause = event.cause?.wire ?? .causeNone
            wire.text = event.text
            // Version 1 predates numbers, causes, threads and timings.
            var expected = event
            (expected.id, expected.causedBy, expected.thread) = (0, 0, "")
            (expected.selfNanos, expected.totalNanos) = (0, 0)
            XCTAssertEqual(StageEvent(wire: wire), expected, "\(event.kind)")
        }
    }
}
