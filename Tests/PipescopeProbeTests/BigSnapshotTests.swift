import Foundation
import NIOCore
import NIOEmbedded
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeWire
import XCTest

/// A program whose graph is too big for one frame: its snapshot reaches an inspector in
/// parts, as the same graph, and the inspector then follows the live stream instead of
/// being counted slow behind its own snapshot. Real pipelines and a real probe; the
/// limits are made small so that a few dozen pipelines are "big".
final class BigSnapshotTests: XCTestCase {
    /// Parts of 2 KiB, and a queue whose high mark one snapshot of 40 pipelines passes.
    private static let small: ServerLimits = {
        var limits = ServerLimits.standard
        limits.snapshotPart = 2 * 1024
        limits.queued = .init(low: 256, high: 1024)
        limits.catchUp = 16 * 1024
        return limits
    }()

    /// Parts of 2 KiB, with the snapshot encoded off the event loop from 10 stages on, as
    /// a real program's of more than 2,000 stages is; the standard queue, so that a slow
    /// reader (a sanitizer's build) is never counted slow here: that path has its own
    /// tests below, with ``small``.
    private static let apart: ServerLimits = {
        var limits = ServerLimits.standard
        limits.snapshotPart = small.snapshotPart
        limits.encodeApart = 10
        return limits
    }()

    private var keep: [AnyCancellable] = []
    private let subject = PassthroughSubject<Int, Never>()

    override func tearDown() {
        keep.removeAll()
    }

    /// `count` pipelines of three stages: subject → map → filter → sink.
    private func pipelines(_ count: Int) {
        for i in 0..<count {
            subject.map { $0 &+ i }.filter { $0 % 2 == 0 }.sink { _ in }.store(in: &keep)
        }
    }

    /// Reads what the hub wrote to one in-memory channel, as the inspector does: a
    /// snapshot's parts joined, then every message into a graph.
    private final class Reader {
        let channel = EmbeddedChannel()
        var frames = FrameDecoder()
        var parts = SnapshotJoiner()
        var stream = WireStreamReader()
        var graph = Graph()
        var snapshots: [GraphSnapshot] = []
        var frameCount = 0

        func drain() throws {
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                frames.append(buffer.readableBytesView)
            }
            while let payload = try frames.next() {
                frameCount += 1
                guard let message = try parts.join(ServerMessage.decode(payload: payload)) else { continue }
                switch try Message(message, reader: &stream) {
                case .snapshot(let s):
                    snapshots.append(s)
                    graph.load(s)
                case .batch(let b): graph.fold(b)
                default: break
                }
            }
        }
    }

    private func values(_ graph: Graph) -> Int {
        graph.nodes.values.filter { $0.operatorName == "Map" }.reduce(0) { $0 + $1.values }
    }

    func testABigSnapshotArrivesInPartsOverARealSocketAsTheProbesGraph() throws {
        let directory = "/tmp/pipescope-big-snapshot-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let probe = Probe()
        let server = try ProbeServer(probe: probe, path: directory + "/probe.sock", limits: Self.apart)
        defer { server.close() }
        probe.enable()
        defer { probe.disable() }
        pipelines(40)
        subject.send(2)
        // The server's event loop flushes too, beside ours: the two take turns, in the
        // order the events were buffered (a subscribe and its stage's value may go in
        // different flushes).
        let folded = Date().addingTimeInterval(30)
        let mapsWithTheirValue = { probe.graph.nodes.values.filter { $0.operatorName == "Map" && $0.values == 1 }.count }
        while mapsWithTheirValue() < 40, Date() < folded {
            _ = probe.flush()
            usleep(1_000)
        }
        XCTAssertEqual(mapsWithTheirValue(), 40, "the probe's graph has the value sent before the attach, in each")
        var writer = WireStreamWriter()
        writer.snapshotPartBytes = Self.small.snapshotPart
        XCTAssertGreaterThan(writer.frames(probe.snapshot()).count, 3, "the probe's snapshot travels in parts")

        let session = try ProbeSession.attach(path: directory + "/probe.sock")
        defer { session.connection.close() }
        let sent = probe.snapshot()
        XCTAssertEqual(session.snapshot.nodes.map(\.id), sent.nodes.map(\.id), "every stage, in order")
        XCTAssertEqual(session.snapshot.nodes.filter { $0.operatorName == "Map" }.count, 40)
        XCTAssertEqual(session.snapshot.nodes.map(\.values), sent.nodes.map(\.values))

        // The stream goes on after it: the values sent after the attach arrive as batches.
        var state = AppState(targetName: "")
        for message in session.openingMessages { _ = reduce(&state, message) }
        for v in 1...5 { subject.send(v * 2) }
        let deadline = Date().addingTimeInterval(30)
        while values(state.cursor.liveGraph) < 40 * 6, Date() < deadline {
            guard let message = session.connection.next(timeout: 0.1) else { continue }
            _ = reduce(&state, message)
        }
        XCTAssertEqual(values(state.cursor.liveGraph), 40 * 6, "one value before the attach and five after, in each")

        // Asked for a fresh snapshot, the answer comes after it: what is sent while it
        // is encoded is held behind it.
        var ask = WireCommand()
        ask.kind = .commandSnapshot
        let id = session.connection.send(ask)
        var seen: [String] = []
        let askDeadline = Date().addingTimeInterval(30)
        while !seen.contains("ack"), Date() < askDeadline {
            switch session.connection.next(timeout: 0.1) {
            case .snapshot(let fresh)?:
                seen.append("snapshot")
                XCTAssertEqual(fresh.nodes.count, sent.nodes.count)
            case .acknowledged(let command, let ok, _)? where command == id:
                XCTAssertTrue(ok)
                seen.append("ack")
            default: break
            }
        }
        XCTAssertEqual(seen, ["snapshot", "ack"])
    }

    /// Right after a snapshot that alone fills its queue, an inspector is reading, not
    /// slow: the batches behind it are queued (up to the catch-up limit), not skipped.
    /// Past that limit it is slow, as any other, and gets a resync that says so.
    func testAnInspectorReadingABigSnapshotCatchesUpInsteadOfBeingSkipped() throws {
        let probe = Probe()
        probe.enable()
        defer { probe.disable() }
        let hub = InspectorHub(probe: probe, limits: Self.small)
        pipelines(40)
        subject.send(0)
        let reader = Reader()
        hub.attach(reader.channel)
        defer { hub.detach(reader.channel) }
        // The snapshot (about 8 KiB) sits unread in its queue.
        reader.channel.isWritable = false
        for v in 1...3 {
            subject.send(v)
            hub.flush()
        }
        try reader.drain()
        XCTAssertEqual(reader.snapshots.count, 1, "no resync")
        XCTAssertGreaterThan(reader.frameCount, 4, "the snapshot in parts, then batches")
        XCTAssertEqual(values(reader.graph), 40 * 4, "every value: none skipped")

        // Still unread, past the catch-up limit: skipped from there on.
        var sent = 4
        var skipped = false
        while !skipped, sent < 5_000 {
            let before = reader.frameCount
            subject.send(sent)
            sent += 1
            hub.flush()
            try reader.drain()
            skipped = reader.frameCount == before
        }
        XCTAssertTrue(skipped, "skipped once the catch-up limit is passed")
        XCTAssertGreaterThan(sent, 10, "not before: 16 KiB of batches (about 1.4 KiB each) were queued behind the snapshot")
        // Drained, it is writable again: the resync comes then, and says what it missed.
        reader.channel.isWritable = true
        hub.flush()
        try reader.drain()
        XCTAssertEqual(reader.snapshots.count, 2, "one resync")
        XCTAssertGreaterThan(reader.snapshots[1].skippedEvents, 0, "and says how many events it missed")
        XCTAssertEqual(values(reader.graph), 40 * sent, "the resync's graph has every value")
    }

    /// A snapshot that fits the queue does not let an inspector off: unwritable right
    /// after it, it is slow at once (catch-up is for a snapshot bigger than the queue).
    func testASmallSnapshotGivesNoCatchUp() throws {
        let probe = Probe()
        probe.enable()
        defer { probe.disable() }
        let hub = InspectorHub(probe: probe, limits: Self.small)
        subject.sink { _ in }.store(in: &keep)
        let reader = Reader()
        hub.attach(reader.channel)
        defer { hub.detach(reader.channel) }
        reader.channel.isWritable = false
        subject.send(1)
        hub.flush()
        reader.channel.isWritable = true
        hub.flush()
        try reader.drain()
        XCTAssertEqual(reader.snapshots.count, 2, "skipped, then resynchronised")
        XCTAssertEqual(reader.snapshots[1].skippedEvents, 1)
    }
}
