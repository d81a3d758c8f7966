import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

final class MessageCodecTests: XCTestCase {
    /// Frames `message`, runs it through a decoder, and decodes the one payload.
    private func roundTrip<M: FramedMessage>(_ message: M) throws -> M {
        var decoder = FrameDecoder()
        decoder.append(message.framed())
        let payload = try XCTUnwrap(try decoder.next())
        XCTAssertNil(try decoder.next())
        return try M.decode(payload: payload)
    }

    func testWelcomeRoundTrips() throws {
        var m = ServerMessage()
        m.welcome.protocolVersion = ProtocolVersion.current
        m.welcome.pid = 4242
        m.welcome.processName = "demo ▸ ünïcode"
        m.welcome.startTimeNs = BatchBuilder.baseNanos
        XCTAssertEqual(try roundTrip(m), m)
    }

    func testErrorRoundTrips() throws {
        let m = ServerMessage.error("no such node #12")
        let back = try roundTrip(m)
        XCTAssertEqual(back, m)
        XCTAssertEqual(back.error.message, "no such node #12")
    }

    /// A batch packed into a message, as a probe writes one.
    private func packed(_ batch: EventBatch) -> ServerMessage {
        var writer = WireStreamWriter()
        return writer.message(batch)
    }

    func testBatchRoundTrips() throws {
        var batch = BatchFixtures.realisticBatch()
        batch.trailer.dropped = 17
        let m = packed(batch)
        let back = try roundTrip(m)
        XCTAssertEqual(back, m)
        var reader = WireStreamReader()
        let unpacked = try reader.batch(back.packed)
        XCTAssertEqual(unpacked, batch)
        XCTAssertEqual(unpacked.events.last { $0.kind == .value && $0.node == 3 }?.text, "5")
    }

    func testSnapshotRoundTrips() throws {
        let snapshot = Graph.folding(BatchFixtures.realisticBatch()).snapshot()
        var writer = WireStreamWriter()
        let m = writer.message(snapshot)
        let back = try roundTrip(m)
        XCTAssertEqual(back, m)
        XCTAssertEqual(back.snapshot.nodes.count, 7)
        var reader = WireStreamReader()
        XCTAssertEqual(try reader.snapshot(back.snapshot), snapshot, "a snapshot comes back exactly")
    }

    func testHelloRoundTrips() throws {
        let m = ClientMessage.hello(client: "pipescope test")
        let back = try roundTrip(m)
        XCTAssertEqual(back, m)
        XCTAssertEqual(back.hello.protocolVersion, ProtocolVersion.current)
        XCTAssertEqual(back.hello.client, "pipescope test")
    }

    func testEmptyMessagesRoundTrip() throws {
        XCTAssertEqual(try roundTrip(ServerMessage()), ServerMessage())
        XCTAssertEqual(try roundTrip(ClientMessage()), ClientMessage())
        XCTAssertEqual(ServerMessage().framed(), [0, 0, 0, 0])
    }

    func testTruncatedPayloadIsMalformed() throws {
        let m = packed(BatchFixtures.realisticBatch())
        let payload = Array(m.framed().dropFirst(Framing.headerSize))
        XCTAssertThrowsError(try ServerMessage.decode(payload: payload.dropLast())) { error in
            guard case .malformed(let why)? = error as? FrameError else {
                return XCTFail("expected .malformed, got \(error)")
            }
            XCTAssertTrue(why.contains("ServerMessage"), why)
            XCTAssertTrue("\(error)".hasPrefix("malformed message:"), "\(error)")
        }
    }

    func testRandomGarbageDecodesOrThrowsMalformed() {
        var rng = SeededGenerator(seed: 0x5EED_CAFE)
        var decoded = 0, refused = 0
        for _ in 0..<4000 {
            let count = Int.random(in: 0...48, using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for decode in [{ _ = try ServerMessage.decode(payload: bytes) },
                           { _ = try ClientMessage.decode(payload: bytes) }] {
                do {
                    try decode()
                    decoded += 1
                } catch let error as FrameError {
                    guard case .malformed = error else { return XCTFail("unexpected \(error) for \(bytes)") }
                    refused += 1
                } catch {
                    return XCTFail("decode threw a non-FrameError \(error) for \(bytes)")
                }
            }
        }
        // Both outcomes happen, so the test exercises both paths.
        XCTAssertGreaterThan(decoded, 0)
        XCTAssertGreaterThan(refused, 0)
    }

    func testMutatedValidMessagesDecodeOrThrowMalformed() {
        let m = packed(BatchFixtures.realisticBatch())
        let valid = Array(m.framed().dropFirst(Framing.headerSize))
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<3000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                _ = try ServerMessage.decode(payload: bytes)
            } catch let error as FrameError {
                guard case .malformed = error else { return XCTFail("unexpected \(error)") }
            } catch {
                return XCTFail("decode threw a non-FrameError \(error)")
            }
        }
    }

    // MARK: - Forward compatibility

    func testUnknownFieldsAreTolerated() throws {
        // Welcome { protocol_version: 1, pid: 42, <field 15: "abc"> } plus <field 99: 7>.
        let welcome: [UInt8] = [0x08, 0x01, 0x10, 0x2A, 0x7A, 0x03, 0x61, 0x62, 0x63]
        let payload: [UInt8] = [0x0A, UInt8(welcome.count)] + welcome + [0x98, 0x06, 0x07]
        let m = try ServerMessage.decode(payload: payload)
        XCTAssertEqual(m.welcome.protocolVersion, 1)
        XCTAssertEqual(m.welcome.pid, 42)
        XCTAssertEqual(m.welcome.processName, "")
    }

    func testUnknownBodyKindDecodesToNoBody() throws {
        // A future ServerMessage body in field 7: decodes, with no body we know.
        let m = try ServerMessage.decode(payload: [0x3A, 0x02, 0x08, 0x01])
        XCTAssertNil(m.body)
    }

    func testUnknownEventKindSurvivesDecoding() throws {
        // Event { kind: 42, node: 3 } inside a version 1 EventBatch inside a ServerMessage.
        let event: [UInt8] = [0x08, 42, 0x10, 0x03]
        let batch: [UInt8] = [0x12, UInt8(event.count)] + event
        let m = try ServerMessage.decode(payload: [0x22, UInt8(batch.count)] + batch)
        XCTAssertEqual(m.batch.events.first?.kind, .UNRECOGNIZED(42))
        XCTAssertEqual(m.batch.events.first?.node, 3)
        // The domain keeps the event, as a kind the fold ignores.
        XCTAssertEqual(EventBatch(legacy: m.batch).events, [StageEvent(.unknown, node: 3, time: 0)])
        // So does a packed batch: kind 42 in the kinds column.
        var p = WirePackedBatch()
        p.kinds = [42, 4]
        p.nodeDeltaNumbers = [3, 0]
        p.timeDeltaNumbers = [0, 1]
        var table = StringTable()
        XCTAssertEqual(try BatchPacking.unpack(p, table: &table).events.map(\.kind), [.unknown, .value])
    }
}
