import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
import PipescopeGraph
import PipescopeWire
import XCTest

/// An inspector that stops reading must never slow the program: the probe skips it,
/// counts what it missed, and resynchronises it with a snapshot that says how much.
final class SlowInspectorTests: XCTestCase {
    /// A Unix-socket client that says Hello and then reads only when told to.
    private final class LazyReader {
        let fd: Int32

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

        /// Everything that arrives until the socket has been quiet for `quiet` seconds.
        func readUntilQuiet(quiet: Double = 1.0, limit: Double = 30) -> [UInt8] {
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let end = Date().addingTimeInterval(limit)
            while Date() < end {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(quiet * 1000)) > 0 else { break }
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                out += chunk[0..<n]
            }
            return out
        }

        deinit { close(fd) }
    }

    func testASlowInspectorIsSkippedCountedAndResynchronised() throws {
        // How much the socket and the probe's buffer absorb depends on the machine's
        // load; each attempt checks the accounting, and one must see a resync.
        var resyncs = 0
        for attempt in 1...3 where resyncs == 0 {
            resyncs += try stuckReaderSession(rounds: 100 * attempt)
        }
        XCTAssertGreaterThan(resyncs, 0, "the reader was skipped and resynchronised")
    }

    /// One program, one stuck reader: returns how many resync snapshots the reader got.
    private func stuckReaderSession(rounds: Int) throws -> Int {
        let directory = "/tmp/pipescope-slow-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let probe = Probe()
        let server = try ProbeServer(probe: probe, path: directory + "/probe.sock")
        defer { server.close() }
        probe.enable()
        defer { probe.disable() }

        let reader = try LazyReader(path: directory + "/probe.sock")
        let subject = PassthroughSubject<String, Never>()
        var received = 0
        let sink = subject.map { $0.uppercased() }.sink { _ in received += 1 }
        // Every value described in full: about 20 MB of events per 100 rounds while the
        // reader reads nothing, far more than the socket holds. The program must carry on.
        probe.captureEveryValue(of: [1, 2])
        let text = String(repeating: "pipescope ", count: 20)
        for round in 0..<rounds {
            for i in 0..<500 { subject.send("\(round * 500 + i) \(text)") }
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTAssertEqual(received, rounds * 500, "the program delivered every value while the inspector was stuck")
        let after = DispatchQueue(label: "after")
        after.asyncAfter(deadline: .now() + 0.2) { subject.send("last") }

        var frames = FrameDecoder()
        frames.append(reader.readUntilQuiet())
        var stream = WireStreamReader()
        var firstSequence: UInt64?
        var lastSequence: UInt64 = 0
        var eventsReceived: UInt64 = 0
        var skipped: UInt64 = 0
        var resyncs = 0
        while let payload = try frames.next() {
            let message = try stream.decode(ServerMessage.decode(payload: payload))
            switch message.body {
            case .snapshot(let s)?:
                if firstSequence == nil {
                    firstSequence = s.sequence
                } else {
                    resyncs += 1
                    skipped += s.skippedEvents
                    // What was skipped is exactly the gap the snapshot closes.
                    XCTAssertEqual(s.sequence - lastSequence, s.skippedEvents)
                }
                lastSequence = s.sequence
            case .batch(let b)?:
                XCTAssertEqual(b.sequence - lastSequence, UInt64(b.events.count), "batches arrive without gaps")
                eventsReceived += UInt64(b.events.count)
                lastSequence = b.sequence
            default: break
            }
        }
        print("slow inspector: received \(eventsReceived) events, skipped \(skipped), resyncs \(resyncs), sequence \(lastSequence)")
        XCTAssertEqual(lastSequence - (firstSequence ?? 0), eventsReceived + skipped,
                       "every event was either received or counted as skipped")
        withExtendedLifetime(sink) {}
        return resyncs
    }
}
