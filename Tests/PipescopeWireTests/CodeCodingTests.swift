import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Code places on the wire: a batch's `stage_code` columns and a snapshot's node infos
/// (fields 13 and 14) bring every field back; a batch without them (an older probe) has
/// none.
final class CodeCodingTests: XCTestCase {
    private static let closure = SourceLocation(file: "/src/Feed/Feed.swift", line: 91,
                                                function: "closure #2 in Feed.start()", image: "FeedApp", offset: 0x2000)
    private static let builder = SourceLocation(file: "/src/Feed/API.swift", line: 12, function: "API.search(_:)",
                                                image: "FeedApp", offset: 0x4000)

    private func travel(_ batch: EventBatch) throws -> (batch: EventBatch, packed: WirePackedBatch) {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let wire = writer.message(batch)
        let decoded = try ServerMessage.decode(payload: wire.framed().dropFirst(Framing.headerSize))
        return (try reader.batch(decoded.packed), wire.packed)
    }

    func testCodePlacesComeBackExactly() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88))
        b.subscribe(2, op: "Deferred", subscriber: "Sink")
        var batch = b.build()
        batch.codes = [StageCode(node: 1, code: Self.closure), StageCode(node: 2, code: Self.closure, builtBy: Self.builder),
                       StageCode(node: 7, code: nil, builtBy: Self.builder)]
        let back = try travel(batch)
        XCTAssertEqual(back.batch, batch)
        XCTAssertEqual(back.packed.stageCode.nodes, [1, 2, 7])
        XCTAssertEqual(back.packed.stageCode.code.counts, [1, 1, 0])
        XCTAssertEqual(back.packed.stageCode.builtBy.counts, [0, 1, 1])
        XCTAssertTrue(back.batch.hasNews)
    }

    func testABatchWithoutCodeHasNoColumns() throws {
        let plain = BatchFixtures.realisticBatch()
        let back = try travel(plain)
        XCTAssertFalse(back.packed.hasStageCode)
        XCTAssertEqual(back.batch.codes, [])
    }

    func testASnapshotsNodeInfoKeepsCodeAndBuiltBy() {
        var info = NodeInfo(id: 3, operatorName: "Deferred", publisherType: "Deferred<Just<Int>>", subscriber: "Sink",
                            thread: "main", createdNanos: 1)
        info.code = Self.closure
        info.builtBy = Self.builder
        XCTAssertEqual(NodeInfo(wire: info.wire), info)
        XCTAssertEqual(info.wire.code.line, 91)
        XCTAssertEqual(info.wire.builtBy.function, "API.search(_:)")
        info.code = nil
        info.builtBy = nil
        XCTAssertFalse(info.wire.hasCode)
        XCTAssertEqual(NodeInfo(wire: info.wire), info)
    }
}
