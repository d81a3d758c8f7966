import NIOCore
import NIOEmbedded
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeWire
import PipescopeClient
import PipescopeModel
import XCTest

/// The fan-out to several inspectors, on in-memory channels: every inspector must be
/// able to read every frame it gets, whatever the others do.
final class InspectorHubTests: XCTestCase {
    /// Reads what the hub wrote to one channel, as a real inspector would.
    private final class Reader {
        let channel = EmbeddedChannel()
        var frames = FrameDecoder()
        var stream = WireStreamReader()
        var graph = Graph()

        func drain() throws {
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                frames.append(buffer.readableBytesView)
            }
            while let payload = try frames.next() {
                switch try Message(ServerMessage.decode(payload: payload), reader: &stream) {
                case .snapshot(let s): graph.load(s)
                case .batch(let b): graph.fold(b)
                default: break
                }
            }
        }
    }

    /// Names first sent while one inspector was behind must reach it in its resync
    /// snapshot, or the next batch that refers to them by id cannot be read.
    func testAResynchronisedInspectorCanReadNamesSentWhileItWasBehind() throws {
        for trial in 0..<8 {
            let probe = Probe()
            probe.enable()
            defer { probe.disable() }
            let hub = InspectorHub(probe: probe)
            let fast = Reader(), slow = Reader()
            // Both attach orders, so either may come first when the hub walks them.
            for reader in trial % 2 == 0 ? [fast, slow] : [slow, fast] { hub.attach(reader.channel) }
            var keep: [AnyCancellable] = []

            slow.channel.isWritable = false
            let subject = PassthroughSubject<Int, Never>()
            subject.map { $0 }.sink { _ in }.store(in: &keep)
            hub.flush()                       // slow is skipped
            slow.channel.isWritable = true
            subject.scan(0, +).sink { _ in }.store(in: &keep)
            hub.flush()                       // new name "Scan"; slow gets its snapshot
            subject.scan(1, +).sink { _ in }.store(in: &keep)
            subject.send(1)
            hub.flush()                       // "Scan" again, by id only

            for reader in [fast, slow] {
                XCTAssertNoThrow(try reader.drain(), "trial \(trial)")
                XCTAssertEqual(reader.graph.roots.compactMap { reader.graph[$0]?.operatorName }, ["Map", "Scan", "Scan"],
                               "trial \(trial)")
            }
            hub.detach(fast.channel)
            hub.detach(slow.channel)
        }
    }
}
