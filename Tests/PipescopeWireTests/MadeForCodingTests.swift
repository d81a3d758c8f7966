import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// What an inner publisher was made for (``NodeInfo/madeFor``) on the wire: in a batch's
/// `node_made_for_events` column (sent only when a stage of the batch has one) and in a
/// snapshot's node infos; a batch or snapshot without it (an older probe, an older
/// recording) reads as made for nothing.
final class MadeForCodingTests: XCTestCase {
    /// `queries.flatMap { search($0) }`: FlatMap 1 ← subject 2; "s" (event 4) makes the
    /// Future 3, the inner made for it.
    private func innerBatch() -> EventBatch {
        var b = BatchBuilder()
        b.subscribe(1, op: "FlatMap", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "FlatMap")
        b.value(2, "s")
        b.subscribe(3, parent: 1, op: "Future", subscriber: "FlatMap")
        b.batch.nodes[2].madeFor = 3
        return b.build()
    }

    private func travel(_ batch: EventBatch) throws -> (batch: EventBatch, packed: WirePackedBatch) {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let wire = writer.message(batch)
        let decoded = try ServerMessage.decode(payload: wire.framed().dropFirst(Framing.headerSize))
        return (try reader.batch(decoded.packed), wire.packed)
    }

    func testABatchCarriesItPerStage() throws {
        let batch = innerBatch()
        let back = try travel(batch)
        XCTAssertEqual(back.packed.nodeMadeForEvents, [0, 0, 3])
        XCTAssertEqual(back.batch, batch)
        XCTAssertEqual(back.batch.nodes.map(\.madeFor), [0, 0, 3])
    }

    /// The first stage of the batch an inner: the column starts with it.
    func testABatchStartingWithAnInnerCarriesIt() throws {
        var b = BatchBuilder()
        b.subscribe(5, parent: 1, op: "Future", subscriber: "FlatMap")
        b.subscribe(6, parent: 1, op: "Future", subscriber: "FlatMap")
        b.batch.nodes[0].madeFor = 21
        b.batch.nodes[1].madeFor = 25
        let back = try travel(b.build())
        XCTAssertEqual(back.packed.nodeMadeForEvents, [21, 25])
        XCTAssertEqual(back.batch.nodes.map(\.madeFor), [21, 25])
    }

    func testABatchWithoutInnersHasNoColumn() throws {
        let plain = BatchFixtures.realisticBatch()
        let back = try travel(plain)
        XCTAssertEqual(back.packed.nodeMadeForEvents, [], "nothing is sent when no stage was made for a value")
        XCTAssertEqual(back.batch, plain)
    }

    /// An older probe's batch has no column: its stages are made for nothing.
    func testABatchFromAnOlderProbeReadsAsMadeForNothing() throws {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        var packed = writer.message(innerBatch()).packed
        packed.nodeMadeForEvents = []
        let back = try reader.batch(packed)
        XCTAssertEqual(back.nodes.map(\.madeFor), [0, 0, 0])
    }

    func testAColumnOfTheWrongLengthIsRefused() {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        var packed = writer.message(innerBatch()).packed
        packed.nodeMadeForEvents = [0, 3]
        XCTAssertThrowsError(try reader.batch(packed)) { error in
            XCTAssertEqual(error as? FrameError,
                           .malformed("a packed batch whose stage columns have different lengths"))
        }
    }

    func testASnapshotCarriesItInItsNodeInfos() throws {
        let graph = Graph.folding(innerBatch())
        let snapshot = graph.snapshot()
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let message = try ServerMessage.decode(payload: writer.message(snapshot).framed().dropFirst(Framing.headerSize))
        XCTAssertEqual(message.snapshot.nodes.map(\.info.madeForEvent), [0, 0, 3])
        let back = try reader.snapshot(message.snapshot)
        XCTAssertEqual(back.nodes.map(\.madeFor), [0, 0, 3])
    }
}
