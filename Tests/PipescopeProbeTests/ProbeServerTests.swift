import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeClient
import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import PipescopeModel
import XCTest

/// The probe's socket server, driven by real connections: the handshake, the snapshot
/// hand-over, permissions, and peers that are broken or hostile.
final class ProbeServerTests: XCTestCase {
    private var directory: String!
    private var path: String!
    private var probe: Probe!
    private var server: ProbeServer!

    override func setUpWithError() throws {
        directory = "/tmp/pipescope-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        path = directory + "/probe.sock"
        probe = Probe()
        server = try ProbeServer(probe: probe, path: path)
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
        server.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Waits until the connection's graph satisfies `condition`, folding what arrives.
    private func waitForGraph(_ connection: ProbeConnection, start: GraphSnapshot,
                              timeout: Double = 30, _ condition: (Graph) -> Bool) -> Graph {
        var graph = Graph()
        graph.load(start)
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(graph), Date() < deadline {
            switch connection.next(timeout: 0.1) {
            case .batch(let b)?: graph.fold(b)
            case .snapshot(let s)?: graph.load(s)
            default: break
            }
        }
        return graph
    }

    func testHandshakeThenSnapshotThenLiveEvents() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 + 1 }.sink { _ in }
        subject.send(1)
        let connection = try ProbeConnection.connect(path: path)
        defer { connection.close() }
        let (welcome, snapshot) = try connection.handshake()
        XCTAssertEqual(welcome.protocolVersion, ProtocolVersion.current)
        XCTAssertEqual(welcome.pid, getpid())
        XCTAssertEqual(snapshot.nodes.map(\.operatorName).sorted(), ["Map", "PassthroughSubject"])
        XCTAssertEqual(snapshot.nodes.map(\.values), [1, 1])

        subject.send(2)
        subject.send(3)
        let graph = waitForGraph(connection, start: snapshot) { g in g.nodes.values.allSatisfy { $0.values == 3 } }
        XCTAssertEqual(graph.nodes.values.map(\.values), [3, 3], "snapshot plus batches count every value once")
        XCTAssertEqual(graph.nodes.values.compactMap(\.lastValue).sorted(), ["3", "4"])
        c.cancel()
    }

    /// A location found after an inspector attached reaches it in a batch of its own
    /// (no events), and the inspector takes it: the stage it attached without a location
    /// gets one, and the connection stays up.
    func testALocationFoundAfterAttachingReachesTheInspector() throws {
        let hold = DispatchGroup()
        hold.enter()
        var released = false
        defer { if !released { hold.leave() } }
        probe.locator.whileResolving = { hold.wait() }
        defer { probe.locator.whileResolving = nil }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 + 1 }.sink { _ in }
        defer { c.cancel() }
        let connection = try ProbeConnection.connect(path: path)
        defer { connection.close() }
        let (_, snapshot) = try connection.handshake()
        XCTAssertEqual(snapshot.nodes.count, 2)
        XCTAssertTrue(snapshot.nodes.allSatisfy { $0.location == nil }, "attached before the symbol thread looked")

        hold.leave()
        released = true
        var disconnected: String?
        var graph = Graph()
        graph.load(snapshot)
        let deadline = Date().addingTimeInterval(60)
        // The root records where the pipeline was made; its upstream stages inherit it.
        let root = try XCTUnwrap(snapshot.nodes.first { $0.parent == nil }?.id)
        while graph[root]?.location == nil, disconnected == nil, Date() < deadline {
            switch connection.next(timeout: 0.1) {
            case .batch(let b)?: graph.fold(b)
            case .snapshot(let s)?: graph.load(s)
            case .disconnected(let why)?: disconnected = why
            default: break
            }
        }
        XCTAssertNil(disconnected)
        XCTAssertEqual(graph[root]?.location?.file.map { URL(fileURLWithPath: $0).lastPathComponent }, "ProbeServerTests.swift")
    }

    /// A snapshot cut while the symbol thread has not looked yet says its locations are
    /// pending; a session that settles them asks again until they are not.
    func testASnapshotSaysWhenLocationsArePendingAndASessionSettlesThem() throws {
        let hold = DispatchGroup()
        hold.enter()
        var released = false
        defer { if !released { hold.leave() } }
        probe.locator.whileResolving = { hold.wait() }
        defer { probe.locator.whileResolving = nil }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 3 }.sink { _ in }
        defer { c.cancel() }
        let session = try ProbeSession.attach(path: path)
        defer { session.connection.close() }
        XCTAssertTrue(session.snapshot.locationsPending, "attached before the symbol thread looked")
        XCTAssertTrue(session.settlingLocations(timeout: 0.3).snapshot.locationsPending, "still held: still pending")

        hold.leave()
        released = true
        let settled = session.settlingLocations(timeout: 60)
        XCTAssertFalse(settled.snapshot.locationsPending)
        let root = try XCTUnwrap(settled.snapshot.nodes.first { $0.parent == nil })
        XCTAssertEqual(root.location?.file.map { URL(fileURLWithPath: $0).lastPathComponent }, "ProbeServerTests.swift")
    }

    func testSocketIsPrivateToTheUser() throws {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "socket mode")
        XCTAssertEqual(stat(directory, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700, "directory mode")
    }

    func testVersionMismatchIsAClearError() throws {
        let raw = try ProbeConnection.connectWithoutHello(path: path)
        defer { raw.close() }
        var hello = ClientMessage()
        hello.hello.protocolVersion = 99
        raw.sendRaw(hello.framed())
        XCTAssertTrue(errorText(raw)?.contains("protocol version mismatch") == true)
    }

    /// An inspector of version 4 (a snapshot always in one frame) attaching to this
    /// version 5 program gets the mismatch in words, naming both versions, and nothing it
    /// would misread (parts of a big snapshot, taken for snapshots of their own).
    func testAnOlderInspectorIsToldWhichVersionsDisagree() throws {
        let raw = try ProbeConnection.connectWithoutHello(path: path)
        defer { raw.close() }
        var hello = ClientMessage()
        hello.hello.protocolVersion = 4
        hello.hello.client = "pipescope 4"
        raw.sendRaw(hello.framed())
        XCTAssertEqual(ProtocolVersion.current, 5)
        XCTAssertEqual(errorText(raw), ProtocolVersion.mismatchMessage(local: 5, remote: 4))
    }

    func testGarbageAndOversizedFramesAreRefusedAndTheHostCarriesOn() throws {
        let subject = PassthroughSubject<Int, Never>()
        var received = 0
        let c = subject.sink { _ in received += 1 }
        let hostile: [[UInt8]] = [
            Array("GET / HTTP/1.1\r\n\r\n".utf8),               // not our protocol at all
            [0x7F, 0xFF, 0xFF, 0xFF],                          // a 2 GiB frame header
            Framing.frame([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),     // a frame that is not a message
        ]
        for bytes in hostile {
            let raw = try ProbeConnection.connectWithoutHello(path: path)
            raw.sendRaw(bytes)
            let text = errorText(raw)
            XCTAssertNotNil(text, "every hostile input gets an error message")
            raw.close()
            subject.send(1)
        }
        XCTAssertEqual(received, hostile.count, "the host's pipeline kept running")
        // A well-behaved inspector can still attach and sees the host's real state.
        let connection = try ProbeConnection.connect(path: path)
        defer { connection.close() }
        let (_, snapshot) = try connection.handshake()
        XCTAssertEqual(snapshot.nodes.first?.values, hostile.count)
        c.cancel()
    }

    func testAnUnknownMessageTypeIsRefusedByName() throws {
        // Field 15 is no ClientMessage body this probe knows (a newer inspector's, say).
        let unknown: [UInt8] = [0x7A, 0x02, 0x08, 0x01]
        let raw = try ProbeConnection.connectWithoutHello(path: path)
        defer { raw.close() }
        raw.sendRaw(Framing.frame(unknown))
        XCTAssertEqual(errorText(raw), "malformed message: a message of a kind this probe does not know. The peer is not speaking the Pipescope protocol.")
    }

    func testATruncatedFrameThenHangUpLeavesTheHostUnharmed() throws {
        let subject = PassthroughSubject<Int, Never>()
        var received = 0
        let c = subject.sink { _ in received += 1 }
        for cut in [1, 3, 6] {
            let raw = try ProbeConnection.connectWithoutHello(path: path)
            raw.sendRaw(Array(ClientMessage.hello(client: "cut").framed().prefix(cut)))
            raw.close()
            subject.send(cut)
        }
        XCTAssertEqual(received, 3)
        let connection = try ProbeConnection.connect(path: path)
        defer { connection.close() }
        XCTAssertNoThrow(try connection.handshake())
        c.cancel()
    }

    func testInspectorThatDisconnectsMidStreamLeavesTheHostUnharmed() throws {
        let subject = PassthroughSubject<Int, Never>()
        var received = 0
        let c = subject.sink { _ in received += 1 }
        for _ in 0..<3 {
            let connection = try ProbeConnection.connect(path: path)
            _ = try connection.handshake()
            for i in 0..<1000 { subject.send(i) }
            connection.close()
        }
        for i in 0..<1000 { subject.send(i) }
        XCTAssertEqual(received, 4000)
        let connection = try ProbeConnection.connect(path: path)
        defer { connection.close() }
        let (_, snapshot) = try connection.handshake()
        let graph = waitForGraph(connection, start: snapshot) { $0.nodes.values.first?.values == 4000 }
        XCTAssertEqual(graph.nodes.values.first?.values, 4000)
        c.cancel()
    }

    func testAttachingWhereNoProbeIsSaysSo() {
        XCTAssertThrowsError(try ProbeConnection.connect(path: directory + "/nobody.sock")) { error in
            XCTAssertEqual(error as? ClientError, .noProbe(path: directory + "/nobody.sock"))
            XCTAssertTrue("\(error)".contains("did it call Pipescope.start()"))
        }
    }

    func testStaleSocketOfADeadProgramIsReplaced() throws {
        let stale = directory + "/stale.sock"
        makeStaleSocket(at: stale)   // as a crashed program leaves behind
        XCTAssertThrowsError(try ProbeConnection.connect(path: stale)) { error in
            XCTAssertEqual(error as? ClientError, .notListening(path: stale))
        }
        let second = try ProbeServer(probe: Probe(), path: stale)
        defer { second.close() }
        let connection = try ProbeConnection.connect(path: stale)
        defer { connection.close() }
        XCTAssertNoThrow(try connection.handshake())
    }

    func testASecondProbeCannotStealALiveSocket() {
        XCTAssertThrowsError(try ProbeServer(probe: Probe(), path: path)) { error in
            XCTAssertTrue("\(error)".contains("already served"))
        }
    }

    private func errorText(_ connection: ProbeConnection) -> String? {
        while let message = connection.next(timeout: 20) {
            // The probe's own words; a connection that merely closed has none.
            if case .disconnected(let text) = message {
                return text.hasPrefix("the program closed the connection") ? nil : text
            }
        }
        return nil
    }
}
