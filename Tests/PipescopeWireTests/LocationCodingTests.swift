import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Source locations on the wire: in a batch's location columns and in a snapshot's node
/// infos, every field comes back; names travel once; columns that do not add up are
/// refused; a batch without them (an older probe) has stages without locations.
final class LocationCodingTests: XCTestCase {
    /// A root with its callers, an upstream stage without a location of its own, a
    /// second root made at the same place, one from a build without debug information,
    /// and one from a stripped binary.
    private func locatedBatch() -> EventBatch {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88),
                    frames: [BatchBuilder.at("App.swift", 12, "App.run()"), BatchBuilder.at("main.swift", 3, "main")])
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Map")
        b.subscribe(3, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88),
                    frames: [BatchBuilder.at("App.swift", 14, "App.run()")])
        b.subscribe(4, op: "Just", subscriber: "Sink",
                    location: SourceLocation(function: "Feed.start()", image: "FeedApp", offset: 0x2f10))
        b.subscribe(5, op: "Just", subscriber: "Sink", location: SourceLocation(image: "FeedApp", offset: 0x2f40))
        return b.build()
    }

    private func travel(_ batch: EventBatch, writer: inout WireStreamWriter,
                        reader: inout WireStreamReader) throws -> (batch: EventBatch, packed: WirePackedBatch) {
        let wire = writer.message(batch)
        let decoded = try ServerMessage.decode(payload: wire.framed().dropFirst(Framing.headerSize))
        return (try reader.batch(decoded.packed), wire.packed)
    }

    func testLocationsComeBackExactlyAndTheirNamesTravelOnce() throws {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let batch = locatedBatch()
        let first = try travel(batch, writer: &writer, reader: &reader)
        XCTAssertEqual(first.batch, batch)
        XCTAssertEqual(first.packed.nodeLocationCounts, [3, 0, 2, 1, 1])
        XCTAssertEqual(first.packed.locationLines, [88, 12, 3, 88, 14, 0, 0])
        XCTAssertEqual(first.packed.newStrings.filter { $0 == "/src/Feed/Feed.swift" }.count, 1)

        // The same place again, in a later batch: no new names.
        var b = BatchBuilder(start: batch.events.last!.time + 1)
        b.subscribe(6, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88))
        let second = try travel(b.build(), writer: &writer, reader: &reader)
        XCTAssertEqual(second.packed.newStrings, [])
        XCTAssertEqual(second.batch.nodes[0].location, BatchBuilder.at("Feed.swift", 88))
    }

    func testABatchWithoutLocationsHasNoColumns() throws {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let plain = BatchFixtures.realisticBatch()
        let back = try travel(plain, writer: &writer, reader: &reader)
        XCTAssertEqual(back.packed.nodeLocationCounts, [], "nothing is sent for stages without locations")
        XCTAssertEqual(back.batch, plain)
        XCTAssertTrue(back.batch.nodes.allSatisfy { $0.location == nil && $0.frames.isEmpty })
    }

    func testLocationColumnsThatDisagreeAreRefused() {
        func refuse(_ edit: (inout WirePackedBatch) -> Void, file: StaticString = #filePath, line: UInt = #line) {
            var writerTable = StringTable(), table = StringTable()
            var p = BatchPacking.pack(locatedBatch(), table: &writerTable)
            edit(&p)
            XCTAssertThrowsError(try BatchPacking.unpack(p, table: &table), file: file, line: line) { error in
                XCTAssertTrue("\(error)".contains("location columns"), "\(error)", file: file, line: line)
            }
        }
        refuse { $0.nodeLocationCounts.removeLast() }
        refuse { $0.nodeLocationCounts[0] = 9 }
        refuse { $0.locationLines.removeLast() }
        refuse { $0.locationOffsets.append(1) }
    }

    // MARK: - Locations found later

    /// Stages 1 and 3 went out without locations; this batch brings them, beside a new
    /// stage that has its own.
    private func lateBatch() -> EventBatch {
        var b = BatchBuilder(start: 5_000)
        b.subscribe(9, op: "Just", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 90))
        var batch = b.build()
        batch.locations = [
            LocatedStage(node: 1, location: BatchBuilder.at("Feed.swift", 88),
                         frames: [BatchBuilder.at("App.swift", 12, "App.run()")]),
            LocatedStage(node: 3, location: SourceLocation(image: "FeedApp", offset: 0x2f40)),
        ]
        return batch
    }

    func testLocationsFoundLaterComeBackExactly() throws {
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let batch = lateBatch()
        let back = try travel(batch, writer: &writer, reader: &reader)
        XCTAssertEqual(back.batch, batch)
        XCTAssertEqual(back.packed.locatedNodes, [1, 3])
        XCTAssertEqual(back.packed.located.counts, [2, 1])
        XCTAssertEqual(back.packed.nodeLocationCounts, [1], "the new stage's stay in their own columns")
        XCTAssertEqual(back.packed.newStrings.filter { $0 == "/src/Feed/Feed.swift" }.count, 1, "names shared")

        // A batch of nothing but a location found (the program is quiet) still travels.
        let alone = EventBatch(locations: [LocatedStage(node: 4, location: BatchBuilder.at("Feed.swift", 91))])
        XCTAssertTrue(alone.hasNews)
        XCTAssertEqual(try travel(alone, writer: &writer, reader: &reader).batch, alone)
    }

    func testLocationsFoundLaterGoWithTheLastPartOfABigBatch() throws {
        var batch = BatchFixtures.realisticBatch()
        batch.locations = lateBatch().locations
        let parts = batch.parts(budget: 200)
        XCTAssertGreaterThan(parts.count, 1)
        XCTAssertEqual(parts.last?.locations, batch.locations)
        XCTAssertTrue(parts.dropLast().allSatisfy(\.locations.isEmpty))
        var whole = Graph(), inParts = Graph()
        whole.fold(batch)
        parts.forEach { inParts.fold($0) }
        XCTAssertEqual(inParts, whole)
        XCTAssertEqual(whole[1]?.location, BatchBuilder.at("Feed.swift", 88))
    }

    func testLocatedColumnsThatDisagreeAreRefused() {
        func refuse(_ edit: (inout WirePackedBatch) -> Void, file: StaticString = #filePath, line: UInt = #line) {
            var writerTable = StringTable(), table = StringTable()
            var p = BatchPacking.pack(lateBatch(), table: &writerTable)
            edit(&p)
            XCTAssertThrowsError(try BatchPacking.unpack(p, table: &table), file: file, line: line) { error in
                XCTAssertTrue(error is FrameError, "\(error)", file: file, line: line)
            }
        }
        refuse { $0.locatedNodes.removeLast() }
        refuse { $0.locatedNodes.append(7) }
        refuse { $0.located.counts[1] = 0; $0.located.counts[0] = 3 }
        refuse { $0.located.counts[0] = 0; $0.located.counts[1] = 3 }
        refuse { $0.located.files.removeLast() }
        refuse { $0.located.functions[0] = 999_999 }
        refuse { $0.located = WireLocationColumns() }
    }

    func testASnapshotCarriesLocationsAndCallers() {
        let graph = Graph.folding(locatedBatch())
        let snapshot = graph.snapshot()
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let back = try? reader.snapshot(ServerMessage.decode(payload: writer.message(snapshot).framed().dropFirst(4)).snapshot)
        XCTAssertEqual(back, snapshot)
        XCTAssertEqual(back?.nodes.first?.frames.map(\.line), [12, 3])
        var loaded = Graph()
        loaded.load(back ?? GraphSnapshot())
        XCTAssertEqual(loaded.location(of: 2)?.location.short, "Feed.swift:88", "the upstream stage finds its root's")
    }
}
