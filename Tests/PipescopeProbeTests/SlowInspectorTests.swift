import Foundation
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

/// An inspector that stops reading must never slow the program: the probe skips it,
/// counts what it missed, and resynchronises it with a snapshot that says how much.
///
/// Nothing here depends on the machine: the probe's buffers are set small (not left to
/// the kernel's defaults, which range from 208 KiB to several MiB), the program sends
/// until the probe itself reports the reader as behind, and the reader then reads until
/// its resync snapshot arrives. No fixed amount of data, no sleeps.
final class SlowInspectorTests: XCTestCase {
    /// About 128 KiB of unread data makes an inspector slow: 64 KiB in the kernel (Linux
    /// doubles SO_SNDBUF; on a Unix socket the sender's buffer alone bounds what the
    /// reader has not read) and 64 KiB queued in the probe.
    private static let smallBuffers: ServerLimits = {
        var limits = ServerLimits.standard
        limits.sendBuffer = 32 * 1024
        limits.queued = .init(low: 32 * 1024, high: 64 * 1024)
        return limits
    }()

    /// A Unix-socket client that says Hello and then reads only when told to.
    private final class LazyReader {
        let fd: Int32
        private var frames = FrameDecoder()
        private var stream = WireStreamReader()

        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
            }
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard ok == 0 else { throw POSIXError(.ECONNREFUSED) }
            let hello = ClientMessage.hello(client: "lazy test reader").framed()
            _ = hello.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }

        /// Reads and decodes messages, handing each to `until`, until it returns true;
        /// false if the connection ends or `limit` seconds pass first.
        func readMessages(limit: Double = 60, until done: (Message) throws -> Bool) throws -> Bool {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let end = Date().addingTimeInterval(limit)
            while Date() < end {
                while let payload = try frames.next() {
                    if try done(Message(ServerMessage.decode(payload: payload), reader: &stream)) { return true }
                }
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { return false }
                frames.append(chunk[0..<n])
            }
            return false
        }

        deinit { close(fd) }
    }

    func testASlowInspectorIsSkippedCountedAndResynchronised() throws {
        let directory = "/tmp/pipescope-slow-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let probe = Probe()
        let server = try ProbeServer(probe: probe, path: directory + "/probe.sock", limits: Self.smallBuffers)
        defer { server.close() }
        probe.enable()
        defer { probe.disable() }

        let reader = try LazyReader(path: directory + "/probe.sock")
        let subject = PassthroughSubject<String, Never>()
        var received = 0
        let sink = subject.map { $0.uppercased() }.sink { _ in received += 1 }
        // Every value described in full, about 200 bytes an event, while the reader reads
        // nothing: the program sends until the probe reports the reader as behind.
        probe.captureEveryValue(of: [1, 2])
        let text = String(repeating: "pipescope ", count: 20)
        var sent = 0
        let deadline = Date().addingTimeInterval(120)
        while server.inspectorsBehind() == 0 {
            guard Date() < deadline else {
                return XCTFail("after \(sent) values (about \(sent * 400 / 1024) KiB of events) the probe still had not skipped the reader")
            }
            for _ in 0..<500 {
                subject.send("\(sent) \(text)")
                sent += 1
            }
        }
        XCTAssertEqual(received, sent, "the program delivered every value while the inspector was stuck")

        // Reading again, the reader gets what was queued, then its resync snapshot.
        var firstSequence: UInt64?
        var lastSequence: UInt64 = 0
        var eventsReceived: UInt64 = 0
        var skipped: UInt64 = 0
        var resync: GraphSnapshot?
        func fold(_ message: Message) -> Bool {
            switch message {
            case .snapshot(let s):
                if firstSequence == nil {
                    firstSequence = s.sequence
                } else {
                    resync = s
                    skipped += s.skippedEvents
                    // What was skipped is exactly the gap the snapshot closes.
                    XCTAssertEqual(s.sequence - lastSequence, s.skippedEvents, "the snapshot closes the gap exactly")
                }
                lastSequence = s.sequence
            case .batch(let b):
                XCTAssertEqual(b.trailer.sequence - lastSequence, UInt64(b.events.count), "batches arrive without gaps")
                eventsReceived += UInt64(b.events.count)
                lastSequence = b.trailer.sequence
            default: break
            }
            return resync != nil
        }
        XCTAssertTrue(try reader.readMessages(until: fold), "the reader caught up but got no resync snapshot")
        print("slow inspector: sent \(sent) values; received \(eventsReceived) events, skipped \(skipped), "
              + "sequence \(lastSequence)")
        XCTAssertGreaterThan(skipped, 0, "the snapshot says how many events the reader missed")
        XCTAssertEqual(lastSequence - (firstSequence ?? 0), eventsReceived + skipped,
                       "every event was either received or counted as skipped")

        // Resynchronised: what happens next arrives as usual.
        subject.send("after")
        XCTAssertTrue(try reader.readMessages { message in
            _ = fold(message)
            guard case .batch(let b) = message else { return false }
            return !b.events.isEmpty
        }, "events after the resync reach the reader")
        XCTAssertEqual(server.inspectorsBehind(), 0)
        withExtendedLifetime(sink) {}
    }
}
